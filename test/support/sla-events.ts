import type { DataSource } from 'typeorm';
import type { EventConsumer } from './event-consumer.js';

type Json = Record<string, any>;

/** The SLA events a consumer received about one ticket, in arrival order, with repeats of one eventId kept once. */
export function slaEventsOf(consumer: EventConsumer, ticketId: number): Json[] {
  const seen = new Set<string>();
  return consumer
    .forTicket(ticketId)
    .map((message) => JSON.parse(message.content.toString('utf8')))
    .filter((event) => String(event.eventType).startsWith('SLA_'))
    .filter((event) => !seen.has(event.eventId) && seen.add(event.eventId));
}

/** Waits (bounded) until no warning or breach of the ticket's metric is left for the detector to send. */
export async function untilHandled(db: DataSource, ticketId: number, metric: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ pending }] = await db.query(
      `SELECT COUNT(*) AS pending FROM ticket_sla_clocks WHERE ticket_id = ? AND metric = ? AND (warning_due_at IS NOT NULL OR breach_due_at IS NOT NULL)`,
      [ticketId, metric],
    );
    if (Number(pending) === 0) return;
    if (Date.now() > deadline) throw new Error(`SLA events of ticket ${ticketId} (${metric}) still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
