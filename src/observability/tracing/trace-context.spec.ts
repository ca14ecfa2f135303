import { currentTraceContext, mergeTraceLogFields, publishSpans, traceLogFields, untraced } from './trace-context.js';

describe('trace context with tracing off', () => {
  it('has no current context, adds nothing to log lines and runs untraced work as it is', () => {
    expect(currentTraceContext()).toBeUndefined();
    expect(traceLogFields()).toEqual({});
    expect(traceLogFields()).toBe(traceLogFields());
    expect(untraced(() => 42)).toBe(42);
  });

  it("leaves a log line's own fields as they are and the shared empty fields empty", () => {
    const line = { message: 'x' };
    expect(mergeTraceLogFields(line, traceLogFields())).toEqual({ message: 'x' });
    expect(traceLogFields()).toEqual({});
    expect(mergeTraceLogFields(line, { traceId: 't', spanId: 's' })).toEqual({ traceId: 't', spanId: 's', message: 'x' });
  });

  it("passes an event's stored context on as its message headers, and gives none to an event without one", () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const spans = publishSpans(
      [
        { eventId: 'a', eventType: 'CREATED', traceparent, tracestate: 'vendor=x' },
        { eventId: 'b', eventType: 'CREATED', traceparent, tracestate: null },
        { eventId: 'c', eventType: 'UPDATED', traceparent: null },
      ],
      'ticket.exchange',
      'ticket.routing.key',
    );
    expect(spans.map((span) => span.headers)).toEqual([{ traceparent, tracestate: 'vendor=x' }, { traceparent }, undefined]);
    for (const span of spans) expect(() => span.end({ confirmed: true })).not.toThrow();
  });
});
