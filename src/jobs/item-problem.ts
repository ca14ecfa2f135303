import { mapError } from '../common/errors/error-mapping.js';
import { problemDetails } from '../common/errors/problem-details.js';

/** A failure as problem+json says it, for the resource at `instance`: how a job's item records why it failed. */
export function problemOf(error: unknown, instance: string, preface = ''): Record<string, unknown> {
  const mapped = mapError(error);
  return {
    ...problemDetails(mapped.status, instance, `${preface}${mapped.message ?? ''}`.trim() || undefined, mapped.errors, mapped.problem),
  };
}
