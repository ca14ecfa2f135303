import { Injectable } from '@nestjs/common';
import type { SlaMetricName, SlaPriority } from './sla-policy.js';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import { storedHistoryChange } from '../tickets/history-entry.js';
import type { SlaClock } from './sla-clock.js';
import type { HistoryWrite, ReplayComment } from './sla-replay.js';

/** The due time stored for a ticket without a running clock (see the migration CreateSlaClocks). */
export const NEVER_DUE = new Date('9999-12-31T23:59:59.999Z');

export type SlaEventKind = 'WARNING' | 'BREACHED';

interface ClockRow {
  ticket_id: string | number;
  metric: SlaMetricName;
  cycle: number;
  calendar: string;
  goal: string;
  goal_ms: string | number;
  started_at: Date;
  stopped_at: Date | null;
  elapsed_ms: string | number;
  running_since: Date | null;
  breach_at: Date | null;
  warning_due_at: Date | null;
  breach_due_at: Date | null;
}

/** A ticket's clocks with what the rules need of the ticket. */
export interface TicketClockRows {
  requesterEmail: string;
  priority: string;
  clocks: SlaClock[];
}

/** A ticket whose clocks are to be reconciled, as it is now. */
export interface TicketToReconcile {
  status: string;
  priority: SlaPriority;
  requesterEmail: string;
  /** The time of the last write whose clocks were kept; null when none was since the marker exists. */
  syncedAt: Date | null;
}

/** A warning or breach whose time has come, as the detector finds it. */
export interface DueEvent {
  ticketId: number;
  metric: SlaMetricName;
  cycle: number;
  kind: SlaEventKind;
  dueAt: Date;
}

const CLOCK_COLUMNS = `c.ticket_id, c.metric, c.cycle, c.calendar, c.goal, c.goal_ms, c.started_at, c.stopped_at, c.elapsed_ms,
  c.running_since, c.breach_at, c.warning_due_at, c.breach_due_at`;

const UPSERT_CLOCK = `INSERT INTO ticket_sla_clocks (ticket_id, metric, cycle, calendar, goal, goal_ms, started_at, stopped_at, elapsed_ms,
    running_since, breach_at, warning_due_at, breach_due_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON DUPLICATE KEY UPDATE calendar = VALUES(calendar), goal = VALUES(goal), goal_ms = VALUES(goal_ms), stopped_at = VALUES(stopped_at),
    elapsed_ms = VALUES(elapsed_ms), running_since = VALUES(running_since), breach_at = VALUES(breach_at),
    warning_due_at = VALUES(warning_due_at), breach_due_at = VALUES(breach_due_at)`;

const date = (ms: number | null) => (ms === null ? null : new Date(ms));
const time = (value: Date | null) => (value === null ? null : value.getTime());

/** All SQL of the SLA clocks: their rows, the ticket columns the lists read, and the events sent. */
@Injectable()
export class SlaRepository {
  constructor(private readonly database: Database) {}

  /**
   * Writes new and changed clocks, the ticket's next due time and that its clocks have seen its writes up to
   * `syncedAt`; results are not read (a transaction's `later`).
   */
  async save(
    manager: Queryable,
    ticketId: number | string,
    changed: readonly SlaClock[],
    nextDue: number | null,
    syncedAt: Date,
  ): Promise<void> {
    for (const clock of changed) {
      await manager.query(UPSERT_CLOCK, [
        ticketId,
        clock.metric,
        clock.cycle,
        clock.calendar,
        clock.goal.text,
        clock.goal.ms,
        date(clock.startedAt),
        date(clock.stoppedAt),
        clock.elapsedMs,
        date(clock.runningSince),
        date(clock.breachAt),
        date(clock.warningDueAt),
        date(clock.breachDueAt),
      ]);
    }
    await manager.query('UPDATE tickets SET sla_due_at = ?, sla_synced_at = ? WHERE id = ?', [
      date(nextDue) ?? NEVER_DUE,
      syncedAt,
      ticketId,
    ]);
  }

  /** The ticket's clocks have seen its writes up to `at` (a write that changed none of them). */
  async markSynced(manager: Queryable, ticketId: number | string, at: Date): Promise<void> {
    await manager.query('UPDATE tickets SET sla_synced_at = ? WHERE id = ?', [at, ticketId]);
  }

  /** How far the history has been reconciled, and where it ends now. */
  async reconciliationRange(): Promise<{ from: number; to: number }> {
    const [[done], [last]] = await Promise.all([
      this.database.rows<{ history_id: string | number }>('SELECT history_id FROM sla_reconciliation WHERE id = 1', []),
      this.database.rows<{ id: string | number | null }>('SELECT MAX(id) AS id FROM ticket_history', []),
    ]);
    return { from: Number(done?.history_id ?? 0), to: Number(last?.id ?? 0) };
  }

  /**
   * The tickets with history entries in (from, to], by the history's primary key, that their clocks may have missed:
   * made after the ticket's last synced write. Writes made with SLA on set sla_synced_at to their own time, so
   * after a restart of a service that kept SLA on this answers nothing, without locking a ticket. Of the tickets
   * without clocks, only those created after `firstWithClocks` (SlaReconciler's rule).
   */
  async ticketsWrittenBetween(from: number, to: number, firstWithClocks: number | undefined): Promise<number[]> {
    const rows = await this.database.rows<{ ticket_id: string }>(
      `SELECT DISTINCT h.ticket_id FROM ticket_history h JOIN tickets t ON t.id = h.ticket_id
       WHERE h.id > ? AND h.id <= ? AND (t.sla_synced_at IS NULL OR h.occurred_at > t.sla_synced_at)
         AND (t.id >= ? OR EXISTS (SELECT 1 FROM ticket_sla_clocks c WHERE c.ticket_id = t.id))
       ORDER BY h.ticket_id`,
      [from, to, firstWithClocks ?? Number.MAX_SAFE_INTEGER],
    );
    return rows.map((row) => Number(row.ticket_id));
  }

  /** The history up to `to` is reconciled; never moves back, whichever replica gets there first. */
  async reconciledTo(to: number): Promise<void> {
    await this.database.rows('UPDATE sla_reconciliation SET history_id = GREATEST(history_id, ?) WHERE id = 1', [to]);
  }

  /** The lowest ticket id that has clocks: SLA was on when that ticket was created; undefined when none has. */
  async firstTicketWithClocks(): Promise<number | undefined> {
    const [row] = await this.database.rows<{ id: string | null }>('SELECT MIN(ticket_id) AS id FROM ticket_sla_clocks', []);
    return row?.id === null || row?.id === undefined ? undefined : Number(row.id);
  }

  /** The ticket's row, locked as a write locks it, with what reconciling its clocks needs; undefined once deleted. */
  async lockForReconciliation(manager: Queryable, ticketId: number): Promise<TicketToReconcile | undefined> {
    const rows = (await manager.query('SELECT status, priority, requester_email, sla_synced_at FROM tickets WHERE id = ? FOR UPDATE', [
      ticketId,
    ])) as Array<{ status: string; priority: SlaPriority; requester_email: string; sla_synced_at: Date | null }>;
    if (rows.length === 0) return undefined;
    const [row] = rows;
    return { status: row.status, priority: row.priority, requesterEmail: row.requester_email, syncedAt: row.sla_synced_at };
  }

  /** The ticket's history entries after `afterId`, in order (idx_ticket_history_ticket). */
  async historyOf(manager: Queryable, ticketId: number, afterId: number): Promise<HistoryWrite[]> {
    const rows = (await manager.query(
      'SELECT occurred_at, action, changes FROM ticket_history WHERE ticket_id = ? AND id > ? ORDER BY id',
      [ticketId, afterId],
    )) as Array<{ occurred_at: Date; action: string; changes: string }>;
    return rows.map((row) => ({ at: row.occurred_at.getTime(), ...storedHistoryChange(row.action, row.changes) }));
  }

  /** These comments' authors and visibility, by id. */
  async commentsByIds(manager: Queryable, ids: readonly number[]): Promise<Map<number, ReplayComment>> {
    if (ids.length === 0) return new Map();
    const rows = (await manager.query('SELECT id, author, visibility FROM ticket_comments WHERE id IN (?)', [ids])) as Array<{
      id: string | number;
      author: string | null;
      visibility: string;
    }>;
    return new Map(rows.map((row) => [Number(row.id), { author: row.author, visibility: row.visibility }]));
  }

  /** The latest cycle of each metric of a ticket, with its requester; undefined when it has no clocks. */
  async latestOf(db: Queryable, ticketId: string | number): Promise<TicketClockRows | undefined> {
    const rows = (await db.query(
      `SELECT ${CLOCK_COLUMNS}, t.requester_email, t.priority FROM ticket_sla_clocks c JOIN tickets t ON t.id = c.ticket_id
        WHERE c.ticket_id = ? AND c.cycle = (SELECT MAX(l.cycle) FROM ticket_sla_clocks l WHERE l.ticket_id = c.ticket_id AND l.metric = c.metric)`,
      [ticketId],
    )) as Array<ClockRow & { requester_email: string; priority: string }>;
    if (rows.length === 0) return undefined;
    return { requesterEmail: rows[0].requester_email, priority: rows[0].priority, clocks: rows.map(clockFromRow) };
  }

  /** Every cycle of a ticket's clocks, oldest first, with the ticket's priority; undefined for an unknown ticket. */
  async allOf(ticketId: string): Promise<{ priority: string; clocks: SlaClock[] } | undefined> {
    const rows = await this.database.rows<Partial<ClockRow> & { priority: string }>(
      `SELECT ${CLOCK_COLUMNS}, t.priority FROM tickets t LEFT JOIN ticket_sla_clocks c ON c.ticket_id = t.id WHERE t.id = ?
        ORDER BY c.metric, c.cycle`,
      [ticketId],
    );
    if (rows.length === 0) return undefined;
    return { priority: rows[0].priority, clocks: rows.filter((row) => row.metric).map((row) => clockFromRow(row as ClockRow)) };
  }

  /** The list columns of these tickets. */
  async summaries(ids: readonly number[]): Promise<Array<{ id: number; dueAt: Date; breached: boolean }>> {
    if (ids.length === 0) return [];
    const rows = await this.database.rows<{ id: string; sla_due_at: Date; sla_breached: number }>(
      'SELECT id, sla_due_at, sla_breached FROM tickets WHERE id IN (?)',
      [ids],
    );
    return rows.map((row) => ({ id: Number(row.id), dueAt: row.sla_due_at, breached: row.sla_breached === 1 }));
  }

  /** Warnings and breaches due by `now`, earliest first, each read from its due index. */
  async due(now: Date, limit: number): Promise<DueEvent[]> {
    const rows = await this.database.rows<{ ticket_id: string; metric: SlaMetricName; cycle: number; kind: SlaEventKind; due_at: Date }>(
      `(SELECT ticket_id, metric, cycle, 'WARNING' AS kind, warning_due_at AS due_at FROM ticket_sla_clocks
          WHERE warning_due_at <= ? ORDER BY warning_due_at LIMIT ?)
        UNION ALL
        (SELECT ticket_id, metric, cycle, 'BREACHED' AS kind, breach_due_at AS due_at FROM ticket_sla_clocks
          WHERE breach_due_at <= ? ORDER BY breach_due_at LIMIT ?)
        ORDER BY due_at LIMIT ?`,
      [now, limit, now, limit, limit],
    );
    return rows.map((row) => ({
      ticketId: Number(row.ticket_id),
      metric: row.metric,
      cycle: row.cycle,
      kind: row.kind,
      dueAt: row.due_at,
    }));
  }

  /**
   * The clock of a due event, locked, if the event is still due at the same time (a write in between may have
   * stopped or re-timed it), with the ticket's priority. The ticket's row is locked first, as every ticket write
   * locks it before the clocks, so the detector and a write wait for each other instead of deadlocking.
   */
  async lockDue(manager: Queryable, event: DueEvent): Promise<{ priority: string; breachAt: Date | null } | undefined> {
    const column = event.kind === 'WARNING' ? 'warning_due_at' : 'breach_due_at';
    const rows = (await manager.query(
      `SELECT t.priority, c.breach_at AS breachAt FROM tickets t STRAIGHT_JOIN ticket_sla_clocks c ON c.ticket_id = t.id
        WHERE t.id = ? AND c.metric = ? AND c.cycle = ? AND c.${column} = ? FOR UPDATE`,
      [event.ticketId, event.metric, event.cycle, event.dueAt],
    )) as Array<{ priority: string; breachAt: Date | null }>;
    return rows[0];
  }

  /** Records the event as sent; false when it already was (by this or another replica, now or before). */
  async recordSent(manager: Queryable, event: DueEvent, now: Date): Promise<boolean> {
    const result = (await manager.query(
      'INSERT IGNORE INTO ticket_sla_events (ticket_id, metric, cycle, kind, due_at, recorded_at) VALUES (?, ?, ?, ?, ?, ?)',
      [event.ticketId, event.metric, event.cycle, event.kind, event.dueAt, now],
    )) as { affectedRows: number };
    return result.affectedRows === 1;
  }

  /** The event is handled: off the clock's to-do, and a breach marks its ticket breached. */
  async markHandled(manager: Queryable, event: DueEvent): Promise<void> {
    const column = event.kind === 'WARNING' ? 'warning_due_at' : 'breach_due_at';
    await manager.query(`UPDATE ticket_sla_clocks SET ${column} = NULL WHERE ticket_id = ? AND metric = ? AND cycle = ?`, [
      event.ticketId,
      event.metric,
      event.cycle,
    ]);
    if (event.kind === 'BREACHED') await manager.query('UPDATE tickets SET sla_breached = 1 WHERE id = ?', [event.ticketId]);
  }

  /** The calendars named by clocks not yet completed. */
  async calendarsInUse(): Promise<string[]> {
    const rows = await this.database.rows<{ calendar: string }>(
      'SELECT DISTINCT calendar FROM ticket_sla_clocks WHERE stopped_at IS NULL',
      [],
    );
    return rows.map((row) => row.calendar);
  }

  /** How many clocks run, per metric. */
  async runningCounts(): Promise<Array<{ metric: SlaMetricName; running: number }>> {
    const rows = await this.database.rows<{ metric: SlaMetricName; running: string | number }>(
      'SELECT metric, COUNT(*) AS running FROM ticket_sla_clocks WHERE running_since IS NOT NULL GROUP BY metric',
      [],
    );
    return rows.map((row) => ({ metric: row.metric, running: Number(row.running) }));
  }
  /**
   * The SLA figures of the tickets `matching` selects, by metric and the ticket's priority now: each ticket's clocks
   * of a metric (all its cycles) are one: completed when every one has stopped, breached when one spent its goal (or
   * runs past its breach time at `now`), its business time their sum. The median and the 90th percentile of the
   * completed ones' times are their nearest ranks, by window functions (MariaDB and MySQL both have them).
   */
  async figures(matching: { from: { sql: string; params: unknown[] }; where: { sql: string; params: unknown[] } }, now: Date) {
    return this.database.rows<{
      priority: SlaPriority;
      metric: SlaMetricName;
      tickets: number | string;
      completed: number | string;
      met: number | string;
      breached: number | string;
      median_ms: number | string | null;
      p90_ms: number | string | null;
    }>(
      `WITH per_ticket AS (
         SELECT tickets.priority AS priority, c.metric AS metric, SUM(c.elapsed_ms) AS elapsed,
           MIN(c.stopped_at IS NOT NULL) AS completed,
           MAX(c.elapsed_ms >= c.goal_ms OR (c.running_since IS NOT NULL AND c.breach_at <= ?)) AS breached
         FROM ${matching.from.sql} STRAIGHT_JOIN ticket_sla_clocks c ON c.ticket_id = tickets.id${matching.where.sql}
         GROUP BY tickets.id, tickets.priority, c.metric),
       ranked AS (
         SELECT per_ticket.*, ROW_NUMBER() OVER (PARTITION BY priority, metric, completed ORDER BY elapsed) AS place,
           COUNT(*) OVER (PARTITION BY priority, metric, completed) AS of_all
         FROM per_ticket)
       SELECT priority, metric, COUNT(*) AS tickets, SUM(completed) AS completed, SUM(completed = 1 AND breached = 0) AS met,
         SUM(breached) AS breached,
         MAX(CASE WHEN completed = 1 AND place = CEIL(0.5 * of_all) THEN elapsed END) AS median_ms,
         MAX(CASE WHEN completed = 1 AND place = CEIL(0.9 * of_all) THEN elapsed END) AS p90_ms
       FROM ranked GROUP BY priority, metric`,
      [now, ...matching.from.params, ...matching.where.params],
    );
  }
}

function clockFromRow(row: ClockRow): SlaClock {
  return {
    metric: row.metric,
    cycle: row.cycle,
    calendar: row.calendar,
    goal: { text: row.goal, ms: Number(row.goal_ms) },
    startedAt: row.started_at.getTime(),
    stoppedAt: time(row.stopped_at),
    elapsedMs: Number(row.elapsed_ms),
    runningSince: time(row.running_since),
    breachAt: time(row.breach_at),
    warningDueAt: time(row.warning_due_at),
    breachDueAt: time(row.breach_due_at),
  };
}
