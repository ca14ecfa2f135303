import type { SqlStatement } from './query/ticket-query-sql.js';
import type { SlaMetricFigures } from './stats/ticket-sla-figures.dto.js';

/** What v2 ticket bodies carry of a ticket's SLA clocks when SLA is on. */
export interface TicketSlaSummary {
  /** Whether any clock of the ticket has breached, in any cycle. */
  breached: boolean;
  /** The earliest breach time of its running clocks; null when none runs. */
  nextBreachTime: Date | null;
}

/**
 * The SLA summaries of v2 ticket bodies, and the SLA figures of a list's matches: reads of tickets/ that the SLA
 * module provides, so that tickets/ does not depend on it.
 */
export interface TicketSlaSummaries {
  /** The summaries of these tickets; undefined, without a statement, when SLA is off (the bodies then carry none). */
  summaries(ids: readonly number[]): Promise<Map<number, TicketSlaSummary>> | undefined;
  /** The figures of the tickets `matching` selects (a checked list query's FROM and WHERE), by metric and priority; undefined when SLA is off. */
  figures(matching: { from: SqlStatement; where: SqlStatement }): Promise<SlaMetricFigures[]> | undefined;
}

export const TICKET_SLA_SUMMARIES = Symbol('TicketSlaSummaries');
