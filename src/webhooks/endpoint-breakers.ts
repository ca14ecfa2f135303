/** How long an endpoint whose attempt timed out is left alone at first; each further timeout doubles it. */
export const FIRST_BACK_OFF_MS = 10_000;
export const MAX_BACK_OFF_MS = 300_000;

interface Breaker {
  /** Timeouts in a row. */
  timeouts: number;
  /** performance.now() until which no attempt goes to the endpoint. */
  openUntil: number;
}

/**
 * A circuit breaker per endpoint, on one replica: an endpoint whose attempt timed out (a receiver that accepts and
 * never answers holds a slot for all of WEBHOOKS_TIMEOUT_MS) gets no attempt for a back-off that doubles with each
 * further timeout (10 s up to 5 min), then one attempt at a time until one succeeds. The dispatcher also sorts
 * endpoints by what their last attempt here came to: `proven` ones (the last attempt succeeded) may use every free
 * slot, the others (new, failing, or just out of their back-off) share at most half of them, so however many
 * receivers hang, an endpoint that answers finds a free slot. Kept in memory: a replica that restarts, or another
 * replica, learns each endpoint's state from its own attempts.
 */
export class EndpointBreakers {
  private readonly breakers = new Map<number, Breaker>();
  private readonly proven = new Set<number>();

  /** Whether attempts to the endpoint are held back now. */
  isOpen(webhookId: number, now: number): boolean {
    const breaker = this.breakers.get(webhookId);
    return breaker !== undefined && now < breaker.openUntil;
  }

  /** Whether the endpoint's last attempt here succeeded. */
  isProven(webhookId: number): boolean {
    return this.proven.has(webhookId);
  }

  /** How many attempts may be in flight to the endpoint at once: `share` for a proven one, otherwise one. */
  share(webhookId: number, share: number): number {
    return this.proven.has(webhookId) ? share : 1;
  }

  succeeded(webhookId: number): void {
    this.breakers.delete(webhookId);
    this.proven.add(webhookId);
  }

  /** An attempt that failed with an answer (or a refused connection): retried per delivery, no back-off here. */
  failed(webhookId: number): void {
    this.breakers.delete(webhookId);
    this.proven.delete(webhookId);
  }

  timedOut(webhookId: number, now: number): void {
    this.proven.delete(webhookId);
    const timeouts = (this.breakers.get(webhookId)?.timeouts ?? 0) + 1;
    const backOff = Math.min(MAX_BACK_OFF_MS, FIRST_BACK_OFF_MS * 2 ** Math.min(timeouts - 1, 30));
    this.breakers.set(webhookId, { timeouts, openUntil: now + backOff });
  }

  /** Forgets endpoints that no longer have enabled deliveries due (deleted or disabled), keeping memory bounded. */
  retain(webhookIds: ReadonlySet<number>): void {
    for (const id of this.breakers.keys()) if (!webhookIds.has(id)) this.breakers.delete(id);
    for (const id of this.proven) if (!webhookIds.has(id)) this.proven.delete(id);
  }
}
