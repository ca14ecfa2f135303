import { AsyncResource } from 'node:async_hooks';
import { Logger } from '@nestjs/common';

export interface PeriodicWorkerOptions {
  /** For the log line of a pass that failed. */
  name: string;
  /** The time from the end of one pass to the start of the next, unless woken earlier. */
  intervalMs: number;
  /**
   * One pass over the work. Answers true when more is waiting right behind (the next pass starts at once). Should not
   * throw: a pass that does is logged and the worker carries on at its interval.
   */
  pass: () => Promise<boolean | void>;
}

/**
 * The service's one kind of background worker (the outbox relay, the change sequencer, the SLA detector, the webhook
 * dispatcher, the purges): a pass every `intervalMs`, and at once when woken (e.g. by a commit's after-commit hook).
 * At most one pass runs at a time; a wake-up during a pass is never lost: it starts another pass right after (a
 * pass that loops over batches may take it over itself, `takeWake`, to keep what it holds). Passes run in the
 * worker's own async context, created with the application, so they never carry the deadline or the log context of
 * a request whose commit woke them. `stop` ends the schedule and waits for the pass in progress.
 */
export class PeriodicWorker {
  private readonly logger: Logger;
  private readonly ownContext: AsyncResource;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private woken = false;
  private started = false;
  private stopped = false;

  constructor(private readonly options: PeriodicWorkerOptions) {
    this.logger = new Logger(options.name);
    this.ownContext = new AsyncResource(options.name);
  }

  /** Runs the first pass now, then one every interval. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.wake();
  }

  /**
   * Runs a pass now, or another one right after the pass in progress; before `start` too (without the schedule).
   * Never throws.
   */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.woken = true;
      return;
    }
    clearTimeout(this.timer);
    this.woken = false;
    this.running = this.ownContext.runInAsyncScope(() => this.run());
  }

  /** Whether the worker was woken since the pass in progress began; clears it (the caller goes round again itself). */
  takeWake(): boolean {
    const woken = this.woken;
    this.woken = false;
    return woken;
  }

  /** Resolves once no pass is in progress. */
  async idle(): Promise<void> {
    await this.running;
  }

  /** No pass starts from now on; resolves once the one in progress, if any, has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async run(): Promise<void> {
    let more = false;
    try {
      more = (await this.options.pass()) === true;
    } catch (error) {
      this.logger.warn(`Pass failed, retrying at the next interval: ${(error as Error).message}`);
    }
    this.running = undefined;
    if (this.stopped) return;
    if (more || this.woken) return this.wake();
    if (!this.started) return;
    this.timer = setTimeout(() => this.wake(), this.options.intervalMs);
    this.timer.unref();
  }
}
