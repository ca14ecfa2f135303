import { randomUUID } from 'node:crypto';
import type { SlaMetricName } from './sla-policy.js';
import type { SlaEventKind } from './sla.repository.js';

export type SlaEventType = 'SLA_WARNING' | 'SLA_BREACHED';

/** Routing keys of their own (decision 26): the v1 binding never sees these events. */
export const SLA_EVENT_ROUTING_KEYS: Readonly<Record<SlaEventType, string>> = {
  SLA_WARNING: 'ticket.sla.warning',
  SLA_BREACHED: 'ticket.sla.breached',
};

/** The usual envelope, and which clock: its metric, its cycle and when it breaches (or breached). */
export interface SlaEvent {
  eventId: string;
  eventType: SlaEventType;
  occurredAt: Date;
  ticketId: number;
  sla: { metric: SlaMetricName; cycle: number; breachTime: Date };
}

export function slaEventType(kind: SlaEventKind): SlaEventType {
  return kind === 'WARNING' ? 'SLA_WARNING' : 'SLA_BREACHED';
}

export function slaEvent(kind: SlaEventKind, ticketId: number, sla: SlaEvent['sla'], occurredAt: Date): SlaEvent {
  return { eventId: randomUUID(), eventType: slaEventType(kind), occurredAt, ticketId, sla };
}
