import { Injectable } from '@nestjs/common';
import type { SlaMetricName } from '../config/sla-config.js';
import { PooledStatement } from '../database/pooled-statement.js';
import type { Queryable } from '../database/statement-batch.js';
import type { SlaClock } from './sla-clock.js';

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
  constructor(private readonly statement: PooledStatement) {}

  /** Writes new and changed clocks and the ticket's next due time; results are not read (a transaction's `later`). */
  async save(manager: Queryable, ticketId: number | string, changed: readonly SlaClock[], nextDue: number | null): Promise<void> {
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
    await manager.query('UPDATE tickets SET sla_due_at = ? WHERE id = ?', [date(nextDue) ?? NEVER_DUE, ticketId]);
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
    const rows = await this.statement.rows<Partial<ClockRow> & { priority: string }>(
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
    const rows = await this.statement.rows<{ id: string; sla_due_at: Date; sla_breached: number }>(
      'SELECT id, sla_due_at, sla_breached FROM tickets WHERE id IN (?)',
      [ids],
    );
    return rows.map((row) => ({ id: Number(row.id), dueAt: row.sla_due_at, breached: row.sla_breached === 1 }));
  }

  /** Warnings and breaches due by `now`, earliest first, each read from its due index. */
  async due(now: Date, limit: number): Promise<DueEvent[]> {
    const rows = await this.statement.rows<{ ticket_id: string; metric: SlaMetricName; cycle: number; kind: SlaEventKind; due_at: Date }>(
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
    const rows = await this.statement.rows<{ calendar: string }>(
      'SELECT DISTINCT calendar FROM ticket_sla_clocks WHERE stopped_at IS NULL',
      [],
    );
    return rows.map((row) => row.calendar);
  }

  /** How many clocks run, per metric. */
  async runningCounts(): Promise<Array<{ metric: SlaMetricName; running: number }>> {
    const rows = await this.statement.rows<{ metric: SlaMetricName; running: string | number }>(
      'SELECT metric, COUNT(*) AS running FROM ticket_sla_clocks WHERE running_since IS NOT NULL GROUP BY metric',
      [],
    );
    return rows.map((row) => ({ metric: row.metric, running: Number(row.running) }));
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
