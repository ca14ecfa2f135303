import type { EnvReader } from './env-reader.js';
import { duration } from './webhooks-config.js';

export const TICKET_WORKFLOWS = ['open', 'strict'] as const;
export type TicketWorkflow = (typeof TICKET_WORKFLOWS)[number];

export interface TicketsConfig {
  /** `open`: any status may follow any other (the original's behaviour); `strict`: only the moves of the spec's table. */
  workflow: TicketWorkflow;
  /** How long after a merge it may be undone (TICKETS_UNMERGE_WINDOW, default 30d). */
  unmergeWindowMs: number;
}

export function parseTicketsConfig(read: EnvReader): TicketsConfig {
  return {
    workflow: read.oneOf('TICKET_WORKFLOW', 'open', TICKET_WORKFLOWS),
    unmergeWindowMs: duration(read, 'TICKETS_UNMERGE_WINDOW', '30d'),
  };
}
