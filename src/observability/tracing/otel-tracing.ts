import { register } from 'node:module';
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { suppressTracing, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Span as SdkSpan,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_DB_QUERY_TEXT, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import type { PublishOutcome } from '../../messaging/rabbitmq.client.js';
import { installTracing, type PublishSpan, type TraceHeaders, type Tracing } from './trace-context.js';

export interface TracingSettings {
  serviceName: string;
  serviceVersion: string;
  endpoint: string;
  samplingProbability: number;
}

/** A statement the server stops at the request's deadline (statement-time-limit.ts): its verb is the one after FOR. */
const TIME_LIMITED = /^SET STATEMENT max_statement_time=\S+ FOR\s+(\S+)/;

/**
 * mysql2's instrumentation names a statement's span after its first word, which for a statement sent with a server
 * time limit is SET: the span takes the verb of the statement itself (INSERT, SELECT, …), as without the limit.
 * The statement's text keeps the prefix, as sent.
 */
class StatementVerbNames implements SpanProcessor {
  onStart(span: SdkSpan): void {
    const text = span.attributes[ATTR_DB_QUERY_TEXT];
    const verb = span.name === 'SET' && typeof text === 'string' ? TIME_LIMITED.exec(text)?.[1] : undefined;
    if (verb) span.updateName(verb);
  }
  onEnd(): void {}
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/**
 * OpenTelemetry for the service: a server span per request (continuing an incoming W3C traceparent), Express'
 * request handler, a span per SQL statement (mysql2), and the relay's publish spans. Spans go out in batches over
 * OTLP/HTTP with JSON bodies. Sampling is parent-based: a caller's sampling decision is followed, and a new trace
 * is sampled with the configured probability. Must run before the application's modules load (see
 * tracing.register.ts): instrumentation patches modules as they are loaded.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracing> {
  // ESM modules (node:http as Nest imports it, express imported from Nest's ESM) are patched through
  // import-in-the-middle's loader hook, limited to the modules an instrumentation asks for.
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: settings.serviceVersion }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.samplingProbability) }),
    spanProcessors: [new StatementVerbNames(), new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.endpoint }))],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ disableOutgoingRequestInstrumentation: true }),
      // Only the route's handler: a span per middleware (helmet, body parser, …) would bury the SQL.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      new MySQL2Instrumentation(),
    ],
  });
  await waitForAllMessagesAcknowledged();

  const tracing = new OtelTracing(provider.getTracer('ticket-service'), provider);
  installTracing(tracing);
  return tracing;
}

class OtelTracing implements Tracing {
  constructor(
    private readonly tracer: Tracer,
    private readonly provider: BasicTracerProvider,
  ) {}

  current(): TraceHeaders | undefined {
    const active = context.active();
    if (!trace.getSpan(active)) return undefined;
    const carrier: Partial<TraceHeaders> = {};
    propagation.inject(active, carrier);
    return carrier.traceparent ? (carrier as TraceHeaders) : undefined;
  }

  logFields(): { traceId: string; spanId: string } | undefined {
    const span = trace.getActiveSpan();
    if (!span) return undefined;
    const { traceId, spanId } = span.spanContext();
    return { traceId, spanId };
  }

  startPublish(
    parent: TraceHeaders | undefined,
    message: { exchange: string; routingKey: string; eventId: string; eventType: string },
  ): PublishSpan {
    const parentContext: Context = parent ? propagation.extract(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      `${message.exchange} publish`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'rabbitmq',
          'messaging.operation.type': 'send',
          'messaging.destination.name': message.exchange,
          'messaging.rabbitmq.destination.routing_key': message.routingKey,
          'messaging.message.id': message.eventId,
          'ticket.event.type': message.eventType,
        },
      },
      parentContext,
    );
    const headers: Record<string, string> = {};
    propagation.inject(trace.setSpan(ROOT_CONTEXT, span), headers);
    return { headers, end: (outcome) => endPublish(span, outcome) };
  }

  untraced<T>(work: () => T): T {
    return context.with(suppressTracing(context.active()), work);
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}

function endPublish(span: Span, outcome: PublishOutcome): void {
  if (!outcome.confirmed) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.reason });
  span.end();
}
