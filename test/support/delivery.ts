import { buildTicketRequest } from './ticket-factory.js';
import { waitUntil } from './waits.js';

/** What a consumer received, judged against the writes that were acknowledged. */
export interface DeliveryReport {
  /** Acknowledged writes whose event never arrived. */
  lost: number;
  /** Arrivals of an eventId already seen (events of the expected tickets only). */
  duplicates: number;
  /** Tickets whose events, de-duplicated by eventId (first arrival kept), are not in the order of the writes. */
  outOfOrder: number[];
}

export interface ReceivedEvent {
  eventId: string;
  ticketId: number;
  /** Position of the write among its ticket's writes (0 for the create). */
  step: number;
}

/**
 * `expected` maps each ticket to how many writes were acknowledged for it (steps 0..n-1). Consumers de-duplicate
 * by eventId, as docs/events.md tells them to; what is left must be each ticket's steps in order, none missing.
 */
export function deliveryReport(received: ReceivedEvent[], expected: Map<number, number>): DeliveryReport {
  const seen = new Set<string>();
  const steps = new Map<number, number[]>();
  let duplicates = 0;
  for (const event of received) {
    if (!expected.has(event.ticketId)) continue;
    if (seen.has(event.eventId)) {
      duplicates++;
      continue;
    }
    seen.add(event.eventId);
    steps.set(event.ticketId, [...(steps.get(event.ticketId) ?? []), event.step]);
  }
  let lost = 0;
  const outOfOrder: number[] = [];
  for (const [ticketId, count] of expected) {
    const arrived = steps.get(ticketId) ?? [];
    const acknowledged = arrived.filter((step) => step < count);
    lost += count - new Set(acknowledged).size;
    if (arrived.some((step, i) => i > 0 && step <= arrived[i - 1])) outOfOrder.push(ticketId);
  }
  return { lost, duplicates, outOfOrder };
}

/** Waits until each of the services holds an equal share of the `partitions` outbox partitions. */
export async function waitForEvenSplit(services: Array<{ url: string }>, partitions: number, timeoutMs: number): Promise<void> {
  const share = partitions / services.length;
  const even = async () =>
    (await Promise.all(services.map((service) => heldPartitions(service.url)))).every((held) => held.length === share);
  await waitUntil(even, timeoutMs, `an even split of ${partitions} partitions`);
}

/** The outbox partitions a running service publishes for, from its health endpoint. */
export async function heldPartitions(serviceUrl: string): Promise<number[]> {
  const response = await fetch(`${serviceUrl}/actuator/health/outbox`, { signal: AbortSignal.timeout(3_000) });
  return ((await response.json()) as { details: { partitionsHeld: number[] } }).details.partitionsHeld;
}

/** One write through a running service; its title carries its step, which its event then shows. */
async function write(serviceUrl: string, method: 'POST' | 'PUT', path: string, step: number): Promise<number> {
  const response = await fetch(`${serviceUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(buildTicketRequest({ title: `step ${step}` })),
  });
  if (response.status !== (method === 'POST' ? 201 : 200))
    throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: number }).id;
}

/**
 * `tickets` tickets, each a create then `updates` updates one after the other, the tickets side by side. Ticket t
 * goes through `services[t % services.length]`, or through each in turn with `rotate`. Returns how many writes of
 * each ticket were acknowledged, also when a write fails (the error is rethrown after all tickets stopped).
 */
export async function writeTickets(
  services: Array<{ url: string }>,
  tickets: number,
  updates: number,
  { rotate = true }: { rotate?: boolean } = {},
): Promise<Map<number, number>> {
  const acknowledged = new Map<number, number>();
  const through = (t: number, step: number) => services[(rotate ? t + step : t) % services.length].url;
  const outcomes = await Promise.allSettled(
    Array.from({ length: tickets }, async (_, t) => {
      const id = await write(through(t, 0), 'POST', '/api/tickets', 0);
      acknowledged.set(id, 1);
      for (let step = 1; step <= updates; step++) {
        await write(through(t, step), 'PUT', `/api/tickets/${id}`, step);
        acknowledged.set(id, step + 1);
      }
    }),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return acknowledged;
}

/** Event bodies as deliveryReport reads them (the step from the ticket's title). */
export function received(bodies: Array<Record<string, any>>): ReceivedEvent[] {
  return bodies.map((body) => ({
    eventId: body.eventId,
    ticketId: body.ticketId,
    step: Number(/step (\d+)/.exec(body.ticket?.title)?.[1] ?? -1),
  }));
}
