export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'partially_succeeded', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** How a job that worked every ticket it was to (or was cancelled) ends, by what became of them. */
export function finalStatus(done: number, failed: number, cancelled: boolean): JobStatus {
  if (cancelled) return 'cancelled';
  if (failed === 0) return 'succeeded';
  return done === 0 ? 'failed' : 'partially_succeeded';
}
