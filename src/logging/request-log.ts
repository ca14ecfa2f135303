import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DestinationStream, Level, Logger } from 'pino';
import { runInRequestContext } from '../common/context/request-context.js';
import { traceLogFields } from '../observability/tracing/trace-context.js';
import type { RefusedRequestLog } from '../common/http/client-error.handler.js';
import { requestId } from './request-id.js';
import { responseErrorOf } from '../common/http/response-error.js';

type Request = IncomingMessage & { originalUrl?: string };

const STARTED = Symbol('requestLog.started');
const REQUEST_ID = Symbol('requestLog.requestId');
type LoggedResponse = ServerResponse & { [STARTED]: number; [REQUEST_ID]: string };

/** What a request line carries besides time, level and message. */
interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  /** Absent on the line of a request refused before it was parsed whole (see refusedRequestLog). */
  durationMs?: number;
  /** On a 4xx/5xx: why (see recordResponseError). */
  errorMessage?: string;
  fieldErrors?: string[];
}

/**
 * The first middleware: gives the request its id (echoed as X-Request-Id), runs the rest of it in a request
 * context that carries the id to every log line written meanwhile, and writes one line when the response is done
 * (time, level, message, requestId, method, path, status, durationMs, and on a 4xx/5xx errorMessage and
 * fieldErrors). The line is built from plain fields and written by the root logger: no logger per request.
 * `jsonDestination` is the stream the root logger writes its JSON lines to (LOG_FORMAT=json, see LoggingModule):
 * the line goes there directly, in the logger's own format; without it, through the logger.
 */
export function requestLog(
  logger: Logger,
  jsonDestination?: DestinationStream | null,
): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const write = lineWriter(logger, jsonDestination);

  function onClose(this: LoggedResponse): void {
    const status = this.statusCode;
    const level = levelFor(status);
    if (!logger.isLevelEnabled(level)) return;
    const req = this.req as Request;
    const path = pathOf(req);
    const line: RequestLine = {
      requestId: this[REQUEST_ID],
      method: req.method ?? '',
      path,
      status,
      durationMs: Date.now() - this[STARTED],
    };
    // An operator reads why a request failed from its line alone; the cause's stack, where there is one, is on the
    // error filter's own line.
    const error = status >= 400 ? responseErrorOf(this) : undefined;
    if (error?.message) line.errorMessage = printable(error.message);
    if (error?.fieldErrors?.length) line.fieldErrors = error.fieldErrors.map(printable);
    write(level, line, `${req.method} ${path} ${this.writableEnded ? status : 'aborted'}`);
  }

  return (req, res, next) => {
    const logged = res as LoggedResponse;
    logged[STARTED] = Date.now();
    const id = (logged[REQUEST_ID] = requestId(req, res));
    // 'close' comes once per response: after 'finish' when it was sent, alone when the client went away first.
    res.on('close', onClose);
    runInRequestContext({ requestId: id }, next);
  };
}

/**
 * The line of a request Node could not parse (see answerClientErrorsAsJson): what the request log writes for every
 * other request, with a fresh requestId, the method and path as far as they arrived, and no duration.
 */
export function refusedRequestLog(logger: Logger, jsonDestination?: DestinationStream | null): RefusedRequestLog {
  const write = lineWriter(logger, jsonDestination);
  return ({ method, path, status, errorMessage }) => {
    const level = levelFor(status);
    if (!logger.isLevelEnabled(level)) return;
    const line: RequestLine = { requestId: randomUUID(), method, path: printable(path), status, errorMessage };
    write(level, line, `${method} ${line.path} ${status}`);
  };
}

function lineWriter(
  logger: Logger,
  jsonDestination?: DestinationStream | null,
): (level: Level, line: RequestLine, message: string) => void {
  return jsonDestination ? jsonLineWriter(jsonDestination) : (level, line, message) => logger[level](line, message);
}

/**
 * Writes a request's line to the logger's destination as the logger itself would in the JSON format (see
 * loggerOptions: level label, ISO time, the trace's fields, the line's own, message last), with one JSON.stringify:
 * pino's general path (mixin, serializers, key by key) costs several times as much for the line every request writes.
 */
function jsonLineWriter(destination: DestinationStream): (level: Level, line: RequestLine, message: string) => void {
  return (level, line, message) => {
    destination.write(`${JSON.stringify({ level, time: new Date().toISOString(), ...traceLogFields(), ...line, message })}\n`);
  };
}

function levelFor(status: number): Level {
  if (status >= 500) return 'error';
  return status >= 400 ? 'warn' : 'info';
}

/**
 * C0 and C1 control characters, DEL, and U+2028/U+2029, on which some line-oriented readers split a line;
 * JSON.stringify escapes only C0.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is this expression's purpose
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * A message can quote what a client sent (a JSON parse error quotes the body around the fault): its control
 * characters are written as `\uXXXX` text, so that no raw one reaches a log line, where it could drive a terminal.
 */
function printable(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The path without its query: filters such as requesterEmail are personal data and stay out of logs. */
function pathOf(req: Request): string {
  const url = req.originalUrl ?? req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
