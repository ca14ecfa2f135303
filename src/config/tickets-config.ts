import type { EnvReader } from './env-reader.js';

export const TICKET_WORKFLOWS = ['open', 'strict'] as const;
export type TicketWorkflow = (typeof TICKET_WORKFLOWS)[number];

export interface TicketsConfig {
  /** `open`: any status may follow any other (the original's behaviour); `strict`: only the moves of the spec's table. */
  workflow: TicketWorkflow;
}

export function parseTicketsConfig(read: EnvReader): TicketsConfig {
  return {
    workflow: read.oneOf('TICKET_WORKFLOW', 'open', TICKET_WORKFLOWS),
  };
}
