/** One message for the broker: the body is already serialised, so what is published is exactly what was stored. */
export interface OutgoingMessage {
  messageId: string;
  type: string;
  timestamp: Date;
  body: string;
  /** AMQP headers, e.g. the W3C `traceparent` and `tracestate` of the event's trace. */
  headers?: Record<string, string>;
}
