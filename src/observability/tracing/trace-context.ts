import type { PublishOutcome } from '../../messaging/rabbitmq.client.js';

/**
 * The seam between the service and OpenTelemetry. Nothing here imports OpenTelemetry: when tracing is off (the
 * default) no implementation is installed, every function below is a cheap no-op, and no OpenTelemetry module is
 * ever loaded. tracing.register.js installs one before the application starts when MANAGEMENT_TRACING_ENABLED=true.
 */

/** A W3C trace context as it travels in headers (and in the change-log row). */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

/** What an event about to be published needs from tracing. */
export interface TracedEvent {
  eventId: string;
  eventType: string;
  /** Null or absent: the configured routing key. */
  routingKey?: string | null;
  traceparent?: string | null;
  tracestate?: string | null;
}

/** The span of one message's publish: the headers the message carries, ended with the broker's answer. */
export interface PublishSpan {
  readonly headers?: Record<string, string>;
  end(outcome: PublishOutcome): void;
}

export interface Tracing {
  /** The active span's context, as headers; undefined outside a span. */
  current(): TraceHeaders | undefined;
  /** traceId and spanId of the active span, for log lines. */
  logFields(): { traceId: string; spanId: string } | undefined;
  /** Starts a producer span as a child of `parent` (the recording request's context), or of nothing. */
  startPublish(
    parent: TraceHeaders | undefined,
    message: { exchange: string; routingKey: string; eventId: string; eventType: string },
  ): PublishSpan;
  /** Runs `work` with tracing suppressed (its database statements make no spans). */
  untraced<T>(work: () => T): T;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

export function installTracing(tracing: Tracing): void {
  installed = tracing;
}

export function activeTracing(): Tracing | undefined {
  return installed;
}

export function currentTraceContext(): TraceHeaders | undefined {
  return installed?.current();
}

const NO_FIELDS: Readonly<Record<string, never>> = Object.freeze({});

/** pino's mixin: traceId and spanId on every line written inside a span; nothing (and no allocation) otherwise. */
export function traceLogFields(): object {
  return installed?.logFields() ?? NO_FIELDS;
}

/**
 * pino's mixinMergeStrategy to go with traceLogFields: pino's default assigns the line's fields into the mixin's
 * object, which must then be a fresh one per line; here the shared empty object is left alone.
 */
export function mergeTraceLogFields(mergeObject: object, mixinObject: object): object {
  return mixinObject === NO_FIELDS ? mergeObject : Object.assign(mixinObject, mergeObject);
}

export function untraced<T>(work: () => T): T {
  return installed ? installed.untraced(work) : work();
}

const UNTRACED: PublishSpan = { headers: undefined, end: () => undefined };

/**
 * A publish span per event. With tracing off the stored context is passed on as it is, so a consumer still joins
 * the request's trace when the replica that publishes does not trace.
 */
export function publishSpans(events: TracedEvent[], exchange: string, defaultRoutingKey: string): PublishSpan[] {
  return events.map((event) => {
    const stored = storedContext(event);
    const routingKey = event.routingKey ?? defaultRoutingKey;
    if (installed) return installed.startPublish(stored, { exchange, routingKey, eventId: event.eventId, eventType: event.eventType });
    return stored ? { headers: { ...stored }, end: UNTRACED.end } : UNTRACED;
  });
}

function storedContext(event: TracedEvent): TraceHeaders | undefined {
  if (!event.traceparent) return undefined;
  return event.tracestate ? { traceparent: event.traceparent, tracestate: event.tracestate } : { traceparent: event.traceparent };
}
