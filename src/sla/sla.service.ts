import { Inject, Injectable, NotFoundException, type OnApplicationBootstrap } from '@nestjs/common';
import { SLA_POLICY, type SlaPolicy, type SlaPriority } from './sla-policy.js';
import type { Transaction, TransactionWrites } from '../database/transaction.js';
import type { TicketResponse } from '../tickets/dto/ticket-response.dto.js';
import type { TicketSlaSummaries, TicketSlaSummary } from '../tickets/ticket-sla-summaries.js';
import { type AddedComment, TicketWriteHook } from '../tickets/ticket-write-hooks.js';
import { ticketNotFound } from '../tickets/ticket-not-found.js';
import type { SlaResponse } from './dto/sla-response.dto.js';
import {
  clocksAfterMerge,
  clocksAfterResponse,
  clocksAfterUnmerge,
  clocksAfterUpdate,
  clocksOfNewTicket,
  nextBreachTime,
  type SlaClock,
} from './sla-clock.js';
import { isResponse } from './sla-replay.js';
import { NEVER_DUE, SlaRepository } from './sla.repository.js';
import type { SqlStatement } from '../tickets/query/ticket-query-sql.js';
import type { SlaMetricFigures } from '../tickets/stats/ticket-sla-figures.dto.js';
import { TicketPriority } from '../tickets/ticket-priority.enum.js';
import { slaView } from './sla-view.js';

/** The figures' order: by metric, then by priority from LOW to CRITICAL. */
const METRIC_ORDER: readonly string[] = ['firstResponse', 'resolution'];
const PRIORITY_ORDER: readonly string[] = Object.values(TicketPriority);

/** The message of the /sla endpoints when SLA is off: a 404, as for a resource this service does not have. */
export const SLA_OFF_MESSAGE = 'SLA clocks are not enabled on this service (SLA_ENABLED=false)';

/**
 * SLA clocks (docs/sla.md): the rules of sla-clock.ts applied to every ticket write in its transaction, and the
 * clocks as Jira shows them. Everything returns at once, without a statement, when SLA is off.
 */
@Injectable()
@TicketWriteHook()
export class SlaService implements TicketWriteHook, TicketSlaSummaries, OnApplicationBootstrap {
  constructor(
    private readonly repository: SlaRepository,
    @Inject(SLA_POLICY) private readonly policy: SlaPolicy | null,
  ) {}

  /**
   * A clock not yet completed keeps the calendar it started with; a policy that no longer has that calendar (renamed
   * or dropped) could not count its time, so start-up ends here instead of counting it by some other calendar.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.policy) return;
    const known = new Set(Object.values(this.policy.priorities).map(({ calendar }) => calendar.name));
    const missing = (await this.repository.calendarsInUse()).filter((name) => !known.has(name));
    if (missing.length > 0) {
      throw new Error(
        `SLA_POLICY_FILE ${this.policy.file}: clocks not yet completed use the calendar(s) ${missing.join(', ')}, which no priority of the policy uses; keep them until those clocks complete`,
      );
    }
  }

  async ticketCreated(writes: TransactionWrites, ticket: TicketResponse, now: Date): Promise<void> {
    if (!this.policy) return;
    const clocks = clocksOfNewTicket(this.policy, ticket, now.getTime());
    await this.repository.save(writes, ticket.id, clocks, nextBreachTime(clocks), now);
  }

  /**
   * An imported ticket has no clocks (what is imported happened elsewhere), but its write is marked as seen, as every
   * write while SLA is on is: SlaReconciler does not look at it again at the next start.
   */
  async ticketImported(writes: TransactionWrites, ticket: TicketResponse, now: Date): Promise<void> {
    if (this.policy) await this.repository.markSynced(writes, ticket.id, now);
  }

  /** Every write while SLA is on marks the ticket's clocks as having seen it (SlaReconciler looks for those that did not). */
  async ticketUpdated(transaction: Transaction, before: TicketResponse, after: TicketResponse, now: Date): Promise<void> {
    if (!this.policy) return;
    const latest =
      before.status === after.status && before.priority === after.priority
        ? undefined
        : await this.repository.latestOf(transaction, after.id);
    if (!latest) return this.repository.markSynced(transaction.later, after.id, now);
    const changed = clocksAfterUpdate(this.policy, latest.clocks, before, after, now.getTime());
    await this.save(transaction, after.id, latest.clocks, changed, now);
  }

  async ticketMerged(transaction: Transaction, ticket: TicketResponse, now: Date): Promise<void> {
    if (!this.policy) return;
    const latest = await this.repository.latestOf(transaction, ticket.id);
    if (!latest) return this.repository.markSynced(transaction.later, ticket.id, now);
    await this.save(transaction, ticket.id, latest.clocks, clocksAfterMerge(this.policy, latest.clocks, now.getTime()), now);
  }

  async ticketUnmerged(transaction: Transaction, ticket: TicketResponse, now: Date): Promise<void> {
    if (!this.policy) return;
    const latest = await this.repository.latestOf(transaction, ticket.id);
    if (!latest) return this.repository.markSynced(transaction.later, ticket.id, now);
    await this.save(transaction, ticket.id, latest.clocks, clocksAfterUnmerge(this.policy, latest.clocks, ticket, now.getTime()), now);
  }

  async commentAdded(transaction: Transaction, ticketId: string, comment: AddedComment, now: Date): Promise<void> {
    if (!this.policy || comment.visibility !== 'PUBLIC' || !comment.author || comment.byRequester) return;
    const latest = await this.repository.latestOf(transaction, ticketId);
    if (!latest || !isResponse(comment, latest.requesterEmail)) return;
    await this.save(transaction, ticketId, latest.clocks, clocksAfterResponse(latest.clocks, this.policy, now.getTime()), now);
  }

  private async save(
    transaction: Transaction,
    ticketId: number | string,
    latest: SlaClock[],
    changed: SlaClock[],
    now: Date,
  ): Promise<void> {
    if (changed.length === 0) return this.repository.markSynced(transaction.later, ticketId, now);
    const merged = [...latest.filter((clock) => !changed.some((c) => c.metric === clock.metric)), ...changed];
    await this.repository.save(transaction.later, ticketId, changed, nextBreachTime(merged), now);
  }

  summaries(ids: readonly number[]): Promise<Map<number, TicketSlaSummary>> | undefined {
    if (!this.policy) return undefined;
    return this.repository
      .summaries(ids)
      .then(
        (rows) =>
          new Map(
            rows.map(({ id, dueAt, breached }) => [
              id,
              { breached, nextBreachTime: dueAt.getTime() >= NEVER_DUE.getTime() ? null : dueAt },
            ]),
          ),
      );
  }

  figures(matching: { from: SqlStatement; where: SqlStatement }): Promise<SlaMetricFigures[]> | undefined {
    if (!this.policy) return undefined;
    const count = (value: number | string | null) => (value === null ? null : Number(value));
    return this.repository.figures(matching, new Date()).then((rows) =>
      rows
        .map((row) => {
          const completed = Number(row.completed);
          const met = Number(row.met);
          return {
            metric: row.metric,
            priority: row.priority as TicketPriority,
            tickets: Number(row.tickets),
            completed,
            met,
            breached: Number(row.breached),
            metShare: completed === 0 ? null : Math.round((met / completed) * 1000) / 1000,
            medianMs: count(row.median_ms),
            p90Ms: count(row.p90_ms),
          };
        })
        .sort(
          (a, b) =>
            METRIC_ORDER.indexOf(a.metric) - METRIC_ORDER.indexOf(b.metric) ||
            PRIORITY_ORDER.indexOf(a.priority) - PRIORITY_ORDER.indexOf(b.priority),
        ),
    );
  }

  /** GET …/sla: every cycle of the ticket's clocks in Jira's shape. */
  async view(id: string): Promise<SlaResponse> {
    if (!this.policy) throw new NotFoundException(SLA_OFF_MESSAGE);
    const found = await this.repository.allOf(id);
    if (!found) throw ticketNotFound(id);
    return slaView(this.policy, found.priority as SlaPriority, found.clocks, Date.now());
  }
}
