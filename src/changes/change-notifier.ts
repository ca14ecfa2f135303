import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { outsideRequestContext } from '../common/context/request-context.js';
import { ChangeFeedRepository } from './change-feed.repository.js';

/** How often a replica with waiting readers looks whether the numbering moved (another replica may number). */
const POLL_INTERVAL_MS = 200;

interface Waiter {
  afterSeq: number;
  wake: () => void;
}

/**
 * Wakes long-polls and SSE streams when a change after their position is numbered. The sequencer of this replica
 * tells it at once (`advance`); while anyone waits, one read per POLL_INTERVAL_MS of the numbering's high mark,
 * for the whole replica, sees what another replica's sequencer numbered. A wait holds no database connection.
 * Listeners (the webhook dispatcher, the mail notifier) are told of every advance too, and say whether they wait for new numbers, which
 * the sequencer asks before a pass per commit (`awaited`). On shutdown every wait ends at once, so the HTTP drain does not wait for them.
 */
@Injectable()
export class ChangeNotifier implements OnModuleDestroy {
  private readonly logger = new Logger(ChangeNotifier.name);
  private readonly waiters = new Set<Waiter>();
  private readonly listeners: Array<{ advanced: () => void; waiting: () => boolean }> = [];
  private known = 0;
  private polling?: NodeJS.Timeout;
  private closed = false;
  private readonly closing = new AbortController();

  constructor(private readonly feed: ChangeFeedRepository) {}

  /** The highest number this replica knows was given. */
  get highMark(): number {
    return this.known;
  }

  get stopping(): boolean {
    return this.closed;
  }

  /** Aborts on shutdown: a write waiting for a slow client races it. */
  get stopSignal(): AbortSignal {
    return this.closing.signal;
  }

  /**
   * Calls `advanced` whenever this replica learns that more changes were numbered (it must not throw); `waiting`
   * says whether the listener waits for new numbers now (see `awaited`).
   */
  onAdvance(advanced: () => void, waiting: () => boolean): void {
    this.listeners.push({ advanced, waiting });
  }

  /** Whether anyone on this replica waits to hear of new numbers at once: a long-poll, a stream or a listener. */
  get awaited(): boolean {
    return this.waiters.size > 0 || this.listeners.some((listener) => listener.waiting());
  }

  /** The numbering reached `lastSeq`: wakes those waiting for less. */
  advance(lastSeq: number): void {
    if (lastSeq <= this.known) return;
    this.known = lastSeq;
    for (const waiter of this.waiters) if (waiter.afterSeq < lastSeq) waiter.wake();
    for (const listener of this.listeners) listener.advanced();
  }

  /**
   * Resolves when a change after `afterSeq` may be there to read, after `timeoutMs`, when `signal` aborts (the
   * client went away) or on shutdown, whichever comes first.
   */
  wait(afterSeq: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.closed || afterSeq < this.known || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        afterSeq,
        wake: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', waiter.wake);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      signal?.addEventListener('abort', waiter.wake);
      this.waiters.add(waiter);
      this.poll();
    });
  }

  onModuleDestroy(): void {
    this.closed = true;
    this.closing.abort();
    clearTimeout(this.polling);
    for (const waiter of this.waiters) waiter.wake();
  }

  private poll(): void {
    if (this.polling || this.closed) return;
    this.polling = setTimeout(() => {
      // The poll serves every waiter of the replica, not any one request.
      void outsideRequestContext(() => this.feed.lastSeq())
        .then(
          (lastSeq) => this.advance(lastSeq),
          (error: unknown) => this.logger.warn(`Could not read the change feed's position: ${(error as Error).message}`),
        )
        .finally(() => {
          this.polling = undefined;
          if (this.waiters.size > 0) this.poll();
        });
    }, POLL_INTERVAL_MS);
    this.polling.unref();
  }
}
