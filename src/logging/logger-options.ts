import { type LoggerOptions, stdSerializers, stdTimeFunctions } from 'pino';
import { currentRequestContext } from '../common/context/request-context.js';
import type { AppConfig } from '../config/app-config.js';
import { mergeTraceLogFields, traceLogFields } from '../observability/tracing/trace-context.js';

/**
 * The pino settings of the one logger of the service: JSON lines (time, level, message) in production,
 * human-readable in development; every line written while a request is handled carries its requestId, and inside
 * a traced request traceId and spanId.
 */
export function loggerOptions(log: AppConfig['log']): LoggerOptions {
  const common: LoggerOptions = {
    level: log.level,
    messageKey: 'message',
    // pid and hostname are the platform's to add; they would only lengthen every line.
    base: null,
    timestamp: stdTimeFunctions.isoTime,
    serializers: { err: errorFields },
    mixin: requestLogFields,
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

/** The mixin: the request's id (unless the line names one itself) and the trace's fields. */
function requestLogFields(line: object): object {
  const trace = traceLogFields();
  const requestId = currentRequestContext()?.requestId;
  if (requestId === undefined || (line as { requestId?: string }).requestId !== undefined) return trace;
  return { requestId, ...trace };
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
