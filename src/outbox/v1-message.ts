/** The parts of a ticket that only the later channels carry: the change feed, webhooks and the later routing keys. */
export const LATER_TICKET_PARTS = ['tags', 'fields'] as const;

/**
 * A CREATED or UPDATED event as the v1 routing key has always carried it, byte for byte (decision 26): its ticket
 * without the parts added since. JSON that went through JSON.stringify comes back from parse and stringify as the
 * same bytes once those keys (written last) are gone; an event without them is returned as it is.
 */
export function v1Message(payload: string): string {
  if (!LATER_TICKET_PARTS.some((part) => payload.includes(`"${part}":`))) return payload;
  const event = JSON.parse(payload) as { ticket?: Record<string, unknown> };
  if (!event.ticket) return payload;
  for (const part of LATER_TICKET_PARTS) delete event.ticket[part];
  return JSON.stringify(event);
}
