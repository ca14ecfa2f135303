import { Inject, Injectable, Logger } from '@nestjs/common';
import { SLA_POLICY, type SlaPolicy } from './sla-policy.js';
import { Database } from '../database/database.js';
import type { Transaction } from '../database/transaction.js';
import { HistoryAction } from '../tickets/history-action.js';
import { replayClocks } from './sla-replay.js';
import { SlaRepository } from './sla.repository.js';

/** History entries looked through per step: the tickets they name are reconciled, then the step is recorded. */
const HISTORY_BATCH = 1000;
/** Tickets reconciled at once, each in its own transaction. */
const PARALLEL = 4;

/**
 * Brings the clocks of tickets written while SLA was off in line with those writes (docs/sla.md#switching-sla-off-and-on),
 * before a service with SLA on starts sending events. Every history entry after the recorded point names a ticket
 * written since; of those, the writes made after the ticket's `sla_synced_at` are the ones its clocks did not see,
 * and they are replayed at their own times (sla-replay.ts). Each ticket is reconciled under its row lock, as a write
 * is, and marked synced in the same transaction, so replicas starting together may meet on a ticket but never apply
 * a write twice; the recorded point only moves forward, and each replica skips what another has recorded.
 */
@Injectable()
export class SlaReconciler {
  private readonly logger = new Logger(SlaReconciler.name);
  private stopping = false;

  constructor(
    private readonly database: Database,
    private readonly repository: SlaRepository,
    @Inject(SLA_POLICY) private readonly policy: SlaPolicy | null,
  ) {}

  /** Reconciles everything written up to now; a failure, or a shutdown meanwhile, leaves the rest for the next start. */
  async reconcile(): Promise<void> {
    if (!this.policy) return;
    try {
      const { from, to } = await this.repository.reconciliationRange();
      if (from >= to) return;
      const firstWithClocks = await this.repository.firstTicketWithClocks();
      let reconciled = 0;
      for (let done = from; done < to;) {
        const start = Math.max(done, (await this.repository.reconciliationRange()).from);
        if (start >= to) break;
        const end = Math.min(start + HISTORY_BATCH, to);
        const ids = await this.repository.ticketsWrittenBetween(start, end, firstWithClocks);
        for (let i = 0; i < ids.length; i += PARALLEL) {
          if (this.stopping) return this.logger.log('SLA reconciliation stopped by the shutdown, to be resumed at the next start');
          const results = await Promise.all(ids.slice(i, i + PARALLEL).map((id) => this.reconcileTicket(id, from, firstWithClocks)));
          reconciled += results.filter(Boolean).length;
        }
        await this.repository.reconciledTo(end);
        done = end;
      }
      if (reconciled > 0) this.logger.log(`SLA clocks of ${reconciled} ticket(s) written while SLA was off brought up to date`);
    } catch (error) {
      this.logger.error(`SLA reconciliation stopped, to be resumed at the next start: ${(error as Error).message}`);
    }
  }

  /** Ends a reconciliation in progress after the tickets it is at. */
  stop(): void {
    this.stopping = true;
  }

  /** True when the ticket's clocks changed. */
  private reconcileTicket(id: number, historyFrom: number, firstWithClocks: number | undefined): Promise<boolean> {
    return this.database.transaction((transaction) => this.reconcileLocked(transaction, id, historyFrom, firstWithClocks));
  }

  /**
   * A ticket with clocks replays its entries after `historyFrom` made after it was last synced. A ticket without
   * clocks gets them only if created after one that has some (SLA had been on before it): its whole history is
   * replayed from its CREATED entry. Tickets from before SLA was first on keep having none.
   */
  private async reconcileLocked(
    transaction: Transaction,
    id: number,
    historyFrom: number,
    firstWithClocks: number | undefined,
  ): Promise<boolean> {
    const ticket = await this.repository.lockForReconciliation(transaction, id);
    if (!ticket) return false;
    const latest = (await this.repository.latestOf(transaction, id))?.clocks ?? [];
    if (latest.length === 0 && (firstWithClocks === undefined || id < firstWithClocks)) return false;
    const synced = ticket.syncedAt?.getTime() ?? -Infinity;
    const writes =
      latest.length === 0
        ? await this.repository.historyOf(transaction, id, 0)
        : await this.repository.historyOf(transaction, id, historyFrom);
    const unseen = latest.length === 0 ? writes : writes.filter((write) => write.at > synced);
    if (unseen.length === 0) return false;
    const commentIds = unseen.filter((write) => write.action === HistoryAction.COMMENTED).map((write) => write.changes.comment.to);
    const comments = await this.repository.commentsByIds(transaction, commentIds);
    const { changed, nextDue } = replayClocks(this.policy!, latest, ticket, unseen, comments);
    const syncedAt = new Date(Math.max(...unseen.map((write) => write.at)));
    if (changed.length === 0) {
      await this.repository.markSynced(transaction.later, id, syncedAt);
      return false;
    }
    await this.repository.save(transaction.later, id, changed, nextDue, syncedAt);
    return true;
  }
}
