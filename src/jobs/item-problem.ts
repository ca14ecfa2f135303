import { mapError } from '../common/errors/error-mapping.js';
import { problemDetails } from '../common/errors/problem-details.js';

/** A failure as problem+json says it, for the resource at `instance`: how a job's item records why it failed. */
export function problemOf(error: unknown, instance: string, preface = ''): Record<string, unknown> {
  const mapped = mapError(error);
  return {
    ...problemDetails(mapped.status, instance, `${preface}${mapped.message ?? ''}`.trim() || undefined, mapped.errors, mapped.problem),
  };
}

/** The most of a refused value, as JSON, and of a detail, an item's problem keeps. */
const REJECTED_MAX = 200;
const DETAIL_MAX = 1000;
const cut = (text: string, max: number) => ([...text].length <= max ? text : `${[...text].slice(0, max - 1).join('')}…`);

/**
 * A problem cut to a size a job keeps for each of its items: a refused import line's values can be megabytes (a long
 * description, a thousand comments), which neither a result row nor a dry run's report should repeat whole.
 */
export function boundedProblem(problem: Record<string, unknown>): Record<string, unknown> {
  const bounded = { ...problem };
  if (typeof bounded.detail === 'string') bounded.detail = cut(bounded.detail, DETAIL_MAX);
  if (Array.isArray(bounded.errors)) {
    bounded.errors = (bounded.errors as Array<Record<string, unknown>>).map((error) => {
      const json = JSON.stringify(error.rejectedValue) ?? '';
      return json.length <= REJECTED_MAX ? error : { ...error, rejectedValue: cut(json, REJECTED_MAX) };
    });
  }
  return bounded;
}
