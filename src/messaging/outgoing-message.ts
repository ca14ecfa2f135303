/** One message for the broker: the body is already serialised, so what is published is exactly what was stored. */
export interface OutgoingMessage {
  /** Each message carries its own routing key, so events of several kinds can go out in one ordered batch. */
  routingKey: string;
  messageId: string;
  type: string;
  timestamp: Date;
  body: string;
  /** AMQP headers, e.g. the W3C `traceparent` and `tracestate` of the event's trace. */
  headers?: Record<string, string>;
}
