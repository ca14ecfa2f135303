import { ConfigError, type EnvReader } from './env-reader.js';
import { duration } from './webhooks-config.js';

export const TICKET_WORKFLOWS = ['open', 'strict'] as const;
export type TicketWorkflow = (typeof TICKET_WORKFLOWS)[number];

export interface TicketsConfig {
  /** `open`: any status may follow any other (the original's behaviour); `strict`: only the moves of the spec's table. */
  workflow: TicketWorkflow;
  /** How long after a merge it may be undone (TICKETS_UNMERGE_WINDOW, default 30d). */
  unmergeWindowMs: number;
  jobs: {
    /** How long a finished job and its results are kept (JOBS_RETENTION, default 30d). */
    retentionMs: number;
    /** How often a replica looks for a job to work, when not woken by a new one (JOBS_POLL_INTERVAL, default 1s). */
    pollIntervalMs: number;
    /** How long a replica's claim of a job lasts unless renewed; another replica takes the job over after it (JOBS_LEASE_TTL, default 30s). */
    leaseTtlMs: number;
  };
}

export function parseTicketsConfig(read: EnvReader): TicketsConfig {
  return {
    workflow: read.oneOf('TICKET_WORKFLOW', 'open', TICKET_WORKFLOWS),
    unmergeWindowMs: duration(read, 'TICKETS_UNMERGE_WINDOW', '30d'),
    jobs: parseJobsConfig(read),
  };
}

function parseJobsConfig(read: EnvReader): TicketsConfig['jobs'] {
  const jobs = {
    retentionMs: duration(read, 'JOBS_RETENTION', '30d'),
    pollIntervalMs: duration(read, 'JOBS_POLL_INTERVAL', '1s'),
    leaseTtlMs: duration(read, 'JOBS_LEASE_TTL', '30s'),
  };
  // A lease is renewed with each ticket worked; a few intervals' room keeps a slow ticket from losing it.
  if (jobs.leaseTtlMs < 4 * jobs.pollIntervalMs) {
    throw new ConfigError(
      `JOBS_LEASE_TTL must be at least 4 × JOBS_POLL_INTERVAL, got ${jobs.leaseTtlMs} ms and ${jobs.pollIntervalMs} ms`,
    );
  }
  return jobs;
}
