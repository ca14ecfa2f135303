import type { EnvReader } from './env-reader.js';

export interface OutboxConfig {
  /** Fixed per deployment: a ticket's events share the partition `ticketId mod partitions`. */
  partitions: number;
  leaseTtlMs: number;
}

export function parseOutboxConfig(read: EnvReader): OutboxConfig {
  return {
    partitions: read.intBetween('OUTBOX_PARTITIONS', 8, 1, 1024),
    // A replica that stops renewing (crashed, paused, cut off) loses its partitions after this long.
    leaseTtlMs: read.intBetween('OUTBOX_LEASE_TTL_MS', 10_000, 500, 600_000),
  };
}
