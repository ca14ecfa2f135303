import { PROBLEM_JSON, problemDetails, type ProblemType } from './problem-details.js';
import { springErrorBody } from './spring-error-body.js';
import type { SpringFieldError } from './spring-field-error.js';

/**
 * Which shape an error takes is decided by the request path alone, so every layer that answers errors (the
 * exception filter, Node's client-error handler) agrees, also for paths no route knows: under `/api/v2` an
 * RFC 9457 problem, anywhere else Spring Boot's error body (decision 25: one table, two shapes).
 */
const PROBLEM_PATH = /^\/api\/v2(?:\/|$)/;

/**
 * Field errors listed in one answer (and its log line): the first ones, in order; the message states the total
 * (`Error count: 7500`). 7,500 bad values in one query would otherwise be a 1.4 MB answer to a 15 KB request.
 */
export const LISTED_ERRORS_MAX = 20;

export interface ErrorPayload {
  contentType: string;
  body: object;
}

/** `problem`, a problem type of the error's own, shows in v2 only; v1 has the same status and message. */
export function errorPayload(
  path: string,
  status: number,
  message?: string,
  allErrors?: SpringFieldError[],
  problem?: ProblemType,
): ErrorPayload {
  const errors = allErrors?.slice(0, LISTED_ERRORS_MAX);
  return PROBLEM_PATH.test(path)
    ? { contentType: PROBLEM_JSON, body: problemDetails(status, path, message, errors, problem) }
    : { contentType: 'application/json', body: springErrorBody(status, path, message, errors) };
}
