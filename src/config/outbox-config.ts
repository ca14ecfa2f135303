import type { EnvReader } from './env-reader.js';

/** The most partitions OUTBOX_PARTITIONS may set. */
const MAX_PARTITIONS = 1024;

/**
 * Every partition number a change may carry, whatever OUTBOX_PARTITIONS says now (an earlier setting numbered
 * rows still kept): reads of the changes waiting for RabbitMQ go through idx_change_log_relay, one range each.
 */
export const EVERY_PARTITION: readonly number[] = Array.from({ length: MAX_PARTITIONS }, (_, partition) => partition);

export interface OutboxConfig {
  /** Fixed per deployment: a ticket's events share the partition `ticketId mod partitions`. */
  partitions: number;
  /** How often the relay looks for events besides being woken by each commit that recorded one. */
  pollIntervalMs: number;
  leaseTtlMs: number;
}

export function parseOutboxConfig(read: EnvReader): OutboxConfig {
  const pollIntervalMs = read.intBetween('OUTBOX_POLL_INTERVAL_MS', 500, 10, 150_000);
  return {
    partitions: read.intBetween('OUTBOX_PARTITIONS', 8, 1, MAX_PARTITIONS),
    pollIntervalMs,
    // A replica that stops renewing (crashed, paused, cut off) loses its partitions after this long.
    leaseTtlMs: read.leaseCoveringPolls(
      'OUTBOX_LEASE_TTL_MS',
      read.intBetween('OUTBOX_LEASE_TTL_MS', 10_000, 500, 600_000),
      'OUTBOX_POLL_INTERVAL_MS',
      pollIntervalMs,
    ),
  };
}
