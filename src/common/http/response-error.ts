import type { ServerResponse } from 'node:http';

/** Why a response is an error, for its request log line: never a stack, only what an operator reads. */
export interface ResponseError {
  /** The error's message: the one the client got, or for a failure the client gets none for, the error's own. */
  message?: string;
  /** For a validation failure, each violation as `field: message`. */
  fieldErrors?: string[];
}

const recorded = new WeakMap<ServerResponse, ResponseError>();

/** Notes why `response` is an error; the request logger adds it to the request's line (see pinoHttpOptions). */
export function recordResponseError(response: ServerResponse, error: ResponseError): void {
  recorded.set(response, error);
}

export function responseErrorOf(response: ServerResponse): ResponseError | undefined {
  return recorded.get(response);
}

const EXCEPTION = Symbol('http.server.requests.exception');

type WithException = ServerResponse & { [EXCEPTION]?: string };

/** Notes the class of the error a request ended with, for the metrics' `exception` label (called by the error filter). */
export function noteRequestException(response: object, exception: unknown): void {
  const name = (exception as { constructor?: { name?: string } } | null)?.constructor?.name;
  (response as WithException)[EXCEPTION] = name || 'Error';
}

export function requestExceptionOf(response: ServerResponse): string | undefined {
  return (response as WithException)[EXCEPTION];
}
