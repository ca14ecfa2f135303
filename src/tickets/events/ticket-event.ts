import { randomUUID } from 'node:crypto';
import type { TicketResponse } from '../dto/ticket-response.dto.js';

/** The kinds the v1 binding has always carried (decision 18): their routing key is RABBITMQ_ROUTING_KEY. */
export type TicketEventType = 'CREATED' | 'UPDATED';

/** Kinds added later; each has a routing key of its own that the v1 binding does not match (decision 26). */
export type LaterTicketEventType =
  'DELETED' | 'COMMENT_ADDED' | 'ATTACHMENT_ADDED' | 'ATTACHMENT_DELETED' | 'LINKED' | 'UNLINKED' | 'MERGED' | 'UNMERGED' | 'IMPORTED';

export type AnyTicketEventType = TicketEventType | LaterTicketEventType;

/**
 * The routing key of each later kind, fixed rather than configurable: consumers bind queues to them (or to
 * `ticket.#`). CREATED and UPDATED are not listed: they keep the configured key.
 */
export const TICKET_EVENT_ROUTING_KEYS: Readonly<Record<LaterTicketEventType, string>> = {
  DELETED: 'ticket.deleted',
  COMMENT_ADDED: 'ticket.comment.added',
  ATTACHMENT_ADDED: 'ticket.attachment.added',
  ATTACHMENT_DELETED: 'ticket.attachment.deleted',
  LINKED: 'ticket.linked',
  UNLINKED: 'ticket.unlinked',
  MERGED: 'ticket.merged',
  UNMERGED: 'ticket.unmerged',
  IMPORTED: 'ticket.imported',
};

interface EventEnvelope<T extends AnyTicketEventType> {
  eventId: string;
  eventType: T;
  occurredAt: Date;
  ticketId: number;
}

/** A ticket as its events carry it: v1's fields, then its tags and its custom field values. */
export type EventTicket = TicketResponse & { tags: string[]; fields: Record<string, unknown> };

/**
 * The message recorded after a write: the ticket exactly as the write left it (for DELETED, its last state), with its
 * tags. On RABBITMQ_ROUTING_KEY it is published as v1 has always had it (src/outbox/v1-message.ts): decision 26.
 */
export interface TicketEvent extends EventEnvelope<TicketEventType | 'DELETED'> {
  ticket: EventTicket;
}

/** A comment as its event carries it: the comment exactly as the API answered it. */
export interface CommentEvent extends EventEnvelope<'COMMENT_ADDED'> {
  comment: object;
}

/** An attachment added or deleted: its metadata as the API answers it, never its bytes. */
export interface AttachmentEvent extends EventEnvelope<'ATTACHMENT_ADDED' | 'ATTACHMENT_DELETED'> {
  attachment: object;
}

/** A link added or removed, one event for each of its two tickets: the link as that ticket sees it (src/links/links.ts). */
export interface LinkEvent extends EventEnvelope<'LINKED' | 'UNLINKED'> {
  link: object;
}

/** A merge or its undoing, one event for the target and one for each source: which tickets were merged into which. */
export interface MergeEvent extends EventEnvelope<'MERGED' | 'UNMERGED'> {
  merge: { targetId: number; sourceIds: number[] };
}

/**
 * A ticket written by an import (docs/import.md), created or updated from its line: the ticket as the import left it
 * and what the line was. Never CREATED or UPDATED, so that consumers of RABBITMQ_ROUTING_KEY are not flooded.
 */
export interface ImportEvent extends EventEnvelope<'IMPORTED'> {
  ticket: EventTicket;
  import: { externalId: string; action: 'created' | 'updated' };
}

export function importEvent(ticket: EventTicket, imported: ImportEvent['import'], occurredAt: Date): ImportEvent {
  return { eventId: randomUUID(), eventType: 'IMPORTED', occurredAt, ticketId: ticket.id, ticket, import: imported };
}

export function mergeEvent(eventType: 'MERGED' | 'UNMERGED', ticketId: number, merge: MergeEvent['merge'], occurredAt: Date): MergeEvent {
  return { eventId: randomUUID(), eventType, occurredAt, ticketId, merge };
}

export function linkEvent(eventType: 'LINKED' | 'UNLINKED', ticketId: number, link: object, occurredAt: Date): LinkEvent {
  return { eventId: randomUUID(), eventType, occurredAt, ticketId, link };
}

export function ticketEvent(
  eventType: TicketEventType | 'DELETED',
  ticket: TicketResponse,
  parts: Pick<EventTicket, 'tags' | 'fields'>,
  occurredAt: Date,
): TicketEvent {
  return {
    eventId: randomUUID(),
    eventType,
    occurredAt,
    ticketId: ticket.id,
    ticket: { ...ticket, tags: parts.tags, fields: parts.fields },
  };
}

export function commentAddedEvent(ticketId: number, comment: object, occurredAt: Date): CommentEvent {
  return { eventId: randomUUID(), eventType: 'COMMENT_ADDED', occurredAt, ticketId, comment };
}

export function attachmentEvent(
  eventType: 'ATTACHMENT_ADDED' | 'ATTACHMENT_DELETED',
  ticketId: number,
  attachment: object,
  occurredAt: Date,
): AttachmentEvent {
  return { eventId: randomUUID(), eventType, occurredAt, ticketId, attachment };
}

/** The routing key an event is recorded with; null means the configured RABBITMQ_ROUTING_KEY. */
export function routingKeyOf(eventType: AnyTicketEventType): string | null {
  return eventType === 'CREATED' || eventType === 'UPDATED' ? null : TICKET_EVENT_ROUTING_KEYS[eventType];
}
