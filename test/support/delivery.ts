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
 * by eventId, as the README tells them to; what is left must be each ticket's steps in order, none missing.
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

export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The outbox partitions a running service publishes for, from its health endpoint. */
export async function heldPartitions(serviceUrl: string): Promise<number[]> {
  const response = await fetch(`${serviceUrl}/actuator/health/outbox`, { signal: AbortSignal.timeout(3_000) });
  return ((await response.json()) as { details: { partitionsHeld: number[] } }).details.partitionsHeld;
}
