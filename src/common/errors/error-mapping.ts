import { HttpException, HttpStatus } from '@nestjs/common';
import { QueryFailedError, TypeORMError } from 'typeorm';
import { REQUEST_LIMITS } from '../http/request-limits.js';
import type { ProblemType } from './problem-details.js';
import { ProblemTypeException } from './problem-type.exception.js';
import type { SpringFieldError } from './spring-field-error.js';
import { ValidationFailedException } from './validation-failed.exception.js';

interface MappedError {
  status: number;
  message?: string;
  errors?: SpringFieldError[];
  /** The error's own problem type, which v2 renders; v1 shows the status and message alone. */
  problem?: ProblemType;
  /** Only unexpected failures are logged with their stack; client errors are not. */
  unexpected?: boolean;
}

/** Errors raised by body-parser carry a `type`; these are the ones a client can cause. */
const BODY_PARSER_ERRORS: Record<string, { status: number; message: (error: Error) => string }> = {
  'entity.too.large': { status: 413, message: () => `Request body is larger than ${REQUEST_LIMITS.bodyBytes} bytes` },
  'entity.parse.failed': { status: 400, message: (error) => `JSON parse error: ${error.message}` },
  'request.aborted': { status: 400, message: () => 'Request aborted' },
  'request.size.invalid': { status: 400, message: () => 'Request size did not match Content-Length' },
  'charset.unsupported': { status: 415, message: (error) => error.message },
  'encoding.unsupported': { status: 415, message: (error) => error.message },
};

/** Driver error codes that mean the database cannot be reached or is overloaded right now. */
const DATABASE_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  'ER_SERVER_SHUTDOWN',
]);

/** The one place where an exception becomes an HTTP status and message. */
export function mapError(exception: unknown): MappedError {
  if (exception instanceof ValidationFailedException) {
    return { status: 400, message: exception.message, errors: exception.fieldErrors };
  }
  // Nest hands body-parser's errors over as HttpExceptions with the original as their cause.
  const bodyParserError = exception instanceof HttpException ? exception.cause : exception;
  const known = BODY_PARSER_ERRORS[(bodyParserError as { type?: string })?.type ?? ''];
  if (known && bodyParserError instanceof Error) {
    return { status: known.status, message: known.message(bodyParserError) };
  }
  // zlib's own errors (Z_DATA_ERROR, ...) when a body declared gzip, deflate or br is not that.
  if (/^Z_/.test(String((bodyParserError as { code?: unknown })?.code))) {
    return { status: 400, message: `Request body does not match its Content-Encoding: ${(bodyParserError as Error).message}` };
  }
  if (exception instanceof ProblemTypeException) {
    return { status: exception.getStatus(), message: exception.message, problem: exception.problem };
  }
  if (exception instanceof HttpException) {
    return { status: exception.getStatus(), message: httpExceptionMessage(exception) };
  }
  if (isDatabaseUnavailable(exception)) {
    return { status: HttpStatus.SERVICE_UNAVAILABLE, message: 'Database unavailable, try again later', unexpected: true };
  }
  return { status: HttpStatus.INTERNAL_SERVER_ERROR, unexpected: true };
}

function httpExceptionMessage(exception: HttpException): string | undefined {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : undefined;
}

function isDatabaseUnavailable(exception: unknown): boolean {
  const error = exception instanceof QueryFailedError ? exception.driverError : exception;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && DATABASE_UNAVAILABLE_CODES.has(code)) return true;
  // TypeORM raises its own errors when the pool cannot hand out a connection.
  return exception instanceof TypeORMError && /connection|pool/i.test(exception.message);
}
