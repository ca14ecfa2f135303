import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { ApplicationAvailability } from '../actuator/lifecycle/application-availability.js';
import { PeriodicWorker } from '../database/periodic-worker.js';
import { Database } from '../database/database.js';
import { untraced } from '../observability/tracing/trace-context.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import { SLA_EVENT_ROUTING_KEYS, slaEvent } from './sla-event.js';
import { SlaMetrics } from './sla.metrics.js';
import { SlaReconciler } from './sla.reconciler.js';
import { type DueEvent, SlaRepository } from './sla.repository.js';

/** How often each replica looks for warnings and breaches that have come due. */
export const SLA_POLL_INTERVAL_MS = 500;
/** Due events handled per pass; a larger backlog (after an outage) takes several passes, one right after another. */
const BATCH = 100;

/**
 * Sends each warning and breach once (decision 32). Every replica polls the due indexes; each due event is handled
 * in one transaction that locks its clock row, checks it is still due at the same time (a write may have stopped or
 * re-timed it meanwhile), inserts the event's row into ticket_sla_events, whose primary key (ticket, metric, cycle,
 * kind) admits it once ever, and only if that added a row records the outbox event. Replicas racing for the same
 * event, a restart between the commit and the next poll, or a re-timed clock coming due again can therefore never
 * send it twice, and no node-local lock is involved. What fell due while no replica ran is found by the first poll.
 */
@Injectable()
export class SlaDetector implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SlaDetector.name);
  private readonly enabled: boolean;
  private stopped = false;
  private reconciled: Promise<void> = Promise.resolve();
  private readonly worker = new PeriodicWorker({
    name: SlaDetector.name,
    intervalMs: SLA_POLL_INTERVAL_MS,
    pass: () => untraced(() => this.pass()),
  });

  constructor(
    private readonly database: Database,
    private readonly repository: SlaRepository,
    private readonly outbox: OutboxWriter,
    private readonly metrics: SlaMetrics,
    private readonly reconciler: SlaReconciler,
    private readonly availability: ApplicationAvailability,
    config: ConfigService<AppConfig, true>,
  ) {
    this.enabled = config.get('sla.enabled', { infer: true });
  }

  /**
   * Clocks that missed writes made while SLA was off are reconciled first, so no event is sent from a stale one. A
   * reconciliation can take minutes (docs/sla.md), so start-up does not wait for it: readiness refuses traffic until
   * it has finished or failed.
   */
  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.reconciled = untraced(() => this.reconciler.reconcile()).then(() => {
      if (!this.stopped) this.worker.start();
    });
    this.availability.refuseTrafficUntil(this.reconciled);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.reconciler.stop();
    await this.reconciled;
    await this.worker.stop();
  }

  /** One pass over what is due now; true when a full batch suggests more is waiting. Never throws. */
  private async pass(): Promise<boolean> {
    try {
      const due = await this.repository.due(new Date(), BATCH);
      let failed = 0;
      for (const event of due) {
        if (this.stopped) break;
        // One event that fails (its transaction rolled back, so it stays due) does not hold up the others.
        await this.handle(event).catch((error: unknown) => {
          this.logger.warn(
            `SLA ${event.kind} of ticket ${event.ticketId} (${event.metric}, cycle ${event.cycle}) not sent yet: ${(error as Error).message}`,
          );
          failed++;
        });
      }
      // Straight on to the next batch only while this one made progress: failing events are retried at the next poll.
      return due.length === BATCH && failed < due.length;
    } catch (error) {
      this.logger.warn(`SLA detector pass failed, retrying: ${(error as Error).message}`);
      return false;
    }
  }

  /** Handles one due event in its own transaction: records it unless it was sent before. */
  private async handle(event: DueEvent): Promise<void> {
    const now = new Date();
    const recorded = await this.database.transaction(async (transaction) => {
      const clock = await this.repository.lockDue(transaction, event);
      if (!clock) return undefined;
      const fresh = await this.repository.recordSent(transaction, event, now);
      if (fresh) {
        const breachTime = event.kind === 'BREACHED' ? event.dueAt : (clock.breachAt ?? event.dueAt);
        const message = slaEvent(event.kind, event.ticketId, { metric: event.metric, cycle: event.cycle, breachTime }, now);
        await this.outbox.record(transaction.later, message, SLA_EVENT_ROUTING_KEYS[message.eventType], undefined);
      }
      await this.repository.markHandled(transaction.later, event);
      return fresh ? clock : undefined;
    });
    if (recorded && event.kind === 'BREACHED') this.metrics.breached(event.metric, recorded.priority);
  }
}
