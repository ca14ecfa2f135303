import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { TICKET_EVENT_ROUTING_KEYS } from '../tickets/events/ticket-event.js';

/** Random bytes in a secret; Standard Webhooks asks for 24 to 64. */
const SECRET_BYTES = 32;

/** A new signing secret in Standard Webhooks' form: `whsec_` and the base64 of random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The webhook `type` of a change_log row, in SQL (deliveries are made from the log by INSERT … SELECT): its routing
 * key when it has one of its own (`ticket.deleted`, `ticket.comment.added`, `ticket.webhook.disabled`, and any later
 * kind's), else `ticket.` and the kind in lower case (CREATED and UPDATED, whose routing key is the configured one:
 * `ticket.created`, `ticket.updated`).
 */
export const WEBHOOK_TYPE_SQL = "COALESCE(routing_key, CONCAT('ticket.', LOWER(REPLACE(event_type, '_', '.'))))";

/**
 * The request body: `type`, `timestamp` (when the change happened) and `data`, the event's JSON exactly as it was
 * published to RabbitMQ. Written around the stored JSON rather than re-serialised, so `data` is byte for byte the
 * message body.
 */
export function webhookBody(type: string, occurredAt: Date, eventJson: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(occurredAt.toISOString())},"data":${eventJson}}`;
}

/** `webhook-signature`: one `v1,<base64 HMAC-SHA256>` per secret, space-separated (two during a rotation). */
export function signatureHeader(secrets: string[], id: string, timestamp: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' ');
}

/** The Standard Webhooks headers of one attempt. */
export function webhookHeaders(secrets: string[], id: string, now: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, id, now, body),
  };
}

/** The event kinds an endpoint may subscribe to: every kind the change log records. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = ['CREATED', 'UPDATED', ...Object.keys(TICKET_EVENT_ROUTING_KEYS), 'WEBHOOK_DISABLED'];
