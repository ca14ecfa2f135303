import { STATUS_CODES } from 'node:http';
import type { SpringFieldError } from './spring-field-error.js';

/** RFC 9457's media type, which v2 errors are sent as. */
export const PROBLEM_JSON = 'application/problem+json';

/** The problem type of a validation failure: the one problem with members beyond RFC 9457's own (`errors`). */
export const VALIDATION_PROBLEM_TYPE = 'urn:problem-type:ticket-service:validation-failed';

/** One failed field or query parameter: the same code as in v1's `errors[]`, without Spring's binding details. */
export interface ProblemFieldError {
  field: string;
  code: string;
  message: string;
  rejectedValue: unknown;
}

/** A problem type of its own (RFC 9457 3.2): its URI and title, and the members it adds after RFC 9457's own. */
export interface ProblemType {
  type: string;
  title: string;
  members: Record<string, unknown>;
}

/**
 * An RFC 9457 problem. Every problem but a validation failure or one of its own type is `about:blank` with the
 * status's reason phrase as its title: the status says all there is to say, and `detail` the specifics.
 */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  errors?: ProblemFieldError[];
}

/** The problem+json rendering of a mapped error (the same status, message and field errors as v1's Spring body). */
export function problemDetails(
  status: number,
  instance: string,
  message?: string,
  errors?: SpringFieldError[],
  problem?: ProblemType,
): ProblemDetails {
  const reason = STATUS_CODES[status] ?? 'Error';
  if (problem) return { type: problem.type, title: problem.title, status, detail: message || reason, instance, ...problem.members };
  return {
    type: errors ? VALIDATION_PROBLEM_TYPE : 'about:blank',
    title: errors ? 'Validation failed' : reason,
    status,
    detail: message || reason,
    instance,
    ...(errors && {
      errors: errors.map(({ field, code, defaultMessage, rejectedValue }) => ({ field, code, message: defaultMessage, rejectedValue })),
    }),
  };
}
