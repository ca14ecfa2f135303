import type { EnvReader } from './env-reader.js';

export interface ChangesConfig {
  /** Changes older than this are deleted; a cursor before them gets 410 resync-required. */
  retentionDays: number;
  /** How often the sequencer numbers newly committed changes (and so, at most, how late a change appears). */
  sequenceIntervalMs: number;
  /** The sequencer's lease: a replica that stops renewing it hands the sequencing over after this long. */
  leaseTtlMs: number;
  /** The comment an idle SSE stream sends this often, so proxies and clients see it is alive. */
  sseHeartbeatMs: number;
  /** The longest a stream lives; it then ends and the client reconnects with Last-Event-ID. */
  streamMaxSeconds: number;
  /** Streams and long-polls one client (a token's subject, else an address) may hold at once on a replica; 0: no limit. */
  streamsPerClient: number;
}

export function parseChangesConfig(read: EnvReader): ChangesConfig {
  const sequenceIntervalMs = read.intBetween('CHANGES_SEQUENCE_INTERVAL_MS', 100, 10, 10_000);
  return {
    retentionDays: read.intBetween('CHANGES_RETENTION_DAYS', 7, 1, 3650),
    sequenceIntervalMs,
    leaseTtlMs: read.leaseCoveringPolls(
      'CHANGES_LEASE_TTL_MS',
      read.intBetween('CHANGES_LEASE_TTL_MS', 10_000, 500, 600_000),
      'CHANGES_SEQUENCE_INTERVAL_MS',
      sequenceIntervalMs,
    ),
    sseHeartbeatMs: read.intBetween('CHANGES_SSE_HEARTBEAT_MS', 15_000, 100, 300_000),
    streamMaxSeconds: read.intBetween('CHANGES_STREAM_MAX_SECONDS', 3600, 1, 86_400),
    streamsPerClient: read.intBetween('CHANGES_STREAMS_PER_CLIENT', 10, 0, 100_000),
  };
}
