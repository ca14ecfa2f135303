import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LevelWithSilent, type LoggerOptions, stdSerializers, stdTimeFunctions } from 'pino';
import type { Options } from 'pino-http';
import type { AppConfig } from '../config/app-config.js';
import { mergeTraceLogFields, traceLogFields } from '../observability/tracing/trace-context.js';
import { requestId } from './request-id.js';
import { responseErrorOf } from './response-error.js';

type Request = IncomingMessage & { originalUrl?: string };

/** What a request line carries besides time, level, message and requestId. */
interface RequestLogFields {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** On a 4xx/5xx: why (see recordResponseError). */
  errorMessage?: string;
  fieldErrors?: string[];
}

/**
 * pino-http settings: one line per request (time, level, message, requestId, method, path, status,
 * durationMs, and on a 4xx/5xx errorMessage and fieldErrors), and every log made while a request is handled
 * carries its requestId.
 */
export function pinoHttpOptions(log: AppConfig['log']): Options<Request, ServerResponse> {
  return {
    ...pinoOptions(log),
    genReqId: requestId,
    // Bind only the id to a request's logger; the request and response objects are never serialised.
    quietReqLogger: true,
    quietResLogger: true,
    wrapSerializers: false,
    customAttributeKeys: { reqId: 'requestId', responseTime: 'durationMs' },
    customLogLevel: (_req, res, error) => levelFor(res.statusCode, error),
    customSuccessMessage: (req, res) => summary(req, res),
    customErrorMessage: (req, res) => summary(req, res),
    customSuccessObject: (req, res, value: { durationMs: number }) => requestFields(req, res, value.durationMs),
    // The cause of a 5xx is logged by the error filter, with the same requestId; pino-http only knows
    // "failed with status code 500", which would add nothing.
    customErrorObject: (req, res, _error, value: { durationMs: number }) => requestFields(req, res, value.durationMs),
  };
}

function pinoOptions(log: AppConfig['log']): LoggerOptions {
  const common: LoggerOptions = {
    level: log.level,
    messageKey: 'message',
    // pid and hostname are the platform's to add; they would only lengthen every line.
    base: null,
    timestamp: stdTimeFunctions.isoTime,
    serializers: { err: errorFields, req: omitted, res: omitted },
    // traceId and spanId on every line written inside a traced request (nothing when tracing is off).
    mixin: traceLogFields,
    mixinMergeStrategy: mergeTraceLogFields,
  };
  if (log.format === 'pretty') {
    // pino-pretty is a development dependency: the production image logs JSON.
    return {
      ...common,
      transport: {
        target: 'pino-pretty',
        options: { messageKey: 'message', translateTime: 'SYS:HH:MM:ss.l', singleLine: true },
      },
    };
  }
  return { ...common, formatters: { level: (label) => ({ level: label }) } };
}

function levelFor(status: number, error?: Error): LevelWithSilent {
  if (error || status >= 500) return 'error';
  return status >= 400 ? 'warn' : 'info';
}

function requestFields(req: Request, res: ServerResponse, durationMs: number): RequestLogFields {
  const fields: RequestLogFields = { method: req.method ?? '', path: pathOf(req), status: res.statusCode, durationMs };
  // An operator reads why a request failed from its line alone; the cause's stack, where there is one, is on the
  // error filter's own line.
  const error = res.statusCode >= 400 ? responseErrorOf(res) : undefined;
  if (error?.message) fields.errorMessage = printable(error.message);
  if (error?.fieldErrors?.length) fields.fieldErrors = error.fieldErrors.map(printable);
  return fields;
}

/** C0 and C1 control characters and DEL; JSON leaves DEL and C1 unescaped. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * A message can quote what a client sent (a JSON parse error quotes the body around the fault): its control
 * characters are written as `\uXXXX` text, so that no raw one reaches a log line, where it could drive a terminal.
 */
function printable(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function summary(req: Request, res: ServerResponse): string {
  const outcome = res.writableEnded ? String(res.statusCode) : 'aborted';
  return `${req.method} ${pathOf(req)} ${outcome}`;
}

/** The path without its query: filters such as requesterEmail are personal data and stay out of logs. */
function pathOf(req: Request): string {
  const url = req.originalUrl ?? req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * Type, message, code and the stack with its chain of causes. Other properties are left out: a
 * database error carries the statement's bound values, which are ticket contents.
 */
function errorFields(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { type, message, stack, code } = stdSerializers.err(error) as ReturnType<typeof stdSerializers.err> & { code?: unknown };
  return { type, message, stack, ...(code === undefined ? {} : { code }) };
}

function omitted(): undefined {
  return undefined;
}
