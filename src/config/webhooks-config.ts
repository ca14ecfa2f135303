import { Resolver } from 'node:dns/promises';
import { ConfigError, type EnvReader } from './env-reader.js';

export interface WebhooksConfig {
  /** One attempt, from resolving the host to the response's status line. */
  timeoutMs: number;
  /** Delays before the second, third, … attempt; after the last, a delivery is failed. */
  retryScheduleMs: number[];
  /** An endpoint whose every attempt has failed for this long is disabled. */
  disableAfterMs: number;
  /** Development and tests: loopback and private addresses, and plain http://. */
  allowPrivateNetworks: boolean;
  /** The DNS servers endpoint hosts are resolved with (`ip` or `ip:port`); empty: the system's (/etc/resolv.conf). */
  dnsServers: string[];
  /**
   * Deliveries in flight at once on this replica (one endpoint gets at most half of them, so a slow one cannot take
   * every slot); 0: this replica does not deliver (it still records).
   */
  concurrency: number;
  /** How often a replica looks for due deliveries besides being woken by a commit. */
  pollIntervalMs: number;
  /** How long a claimed delivery stays this replica's; a crashed replica's work is taken over after it. */
  leaseTtlMs: number;
  /** Finished (succeeded or failed) deliveries are deleted after this many days. */
  retentionDays: number;
  /** How often a replica deletes finished deliveries past retention and pending ones of deleted endpoints. */
  purgeIntervalMs: number;
}

/** Standard Webhooks' schedule: nine retries over about three days. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,14h,20h,24h';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `5s`, `30m`, `2h`, `5d`, `250ms`: a whole number and a unit. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]] : undefined;
}

/** A setting that is a duration (parseDuration), positive. */
export function duration(read: EnvReader, name: string, fallback: string): number {
  const raw = read.string(name, fallback);
  const ms = parseDuration(raw);
  if (ms === undefined || ms <= 0) throw new ConfigError(`${name} must be a duration such as 30s, 5m, 2h or 5d, got "${raw}"`);
  return ms;
}

/** Addresses as c-ares takes them: `1.1.1.1`, `1.1.1.1:53`, `2606:4700:4700::1111`, `[2606:4700:4700::1111]:53`. */
function dnsServers(read: EnvReader): string[] {
  const servers = read.list('WEBHOOKS_DNS_SERVERS', '');
  try {
    new Resolver().setServers(servers);
  } catch {
    throw new ConfigError(
      `WEBHOOKS_DNS_SERVERS must be comma-separated IP addresses, each with an optional :port, got "${servers.join(',')}"`,
    );
  }
  return servers;
}

export function parseWebhooksConfig(read: EnvReader): WebhooksConfig {
  const timeoutMs = read.intBetween('WEBHOOKS_TIMEOUT_MS', 15_000, 100, 300_000);
  const schedule = read.list('WEBHOOKS_RETRY_SCHEDULE', DEFAULT_RETRY_SCHEDULE);
  const retryScheduleMs = schedule.map((step) => parseDuration(step) ?? NaN);
  if (schedule.length === 0 || schedule.length > 50 || retryScheduleMs.some((ms) => !(ms > 0))) {
    throw new ConfigError(`WEBHOOKS_RETRY_SCHEDULE must be 1-50 comma-separated durations such as 5s,5m,2h, got "${schedule.join(',')}"`);
  }
  // The lease must outlast an attempt, or a second replica would take a delivery over while it is still in flight.
  const leaseTtlMs = read.intBetween('WEBHOOKS_LEASE_TTL_MS', 30_000, 1_000, 3_600_000);
  if (leaseTtlMs < timeoutMs + 1_000) {
    throw new ConfigError(`WEBHOOKS_LEASE_TTL_MS must be at least WEBHOOKS_TIMEOUT_MS + 1000 (${timeoutMs + 1_000}), got ${leaseTtlMs}`);
  }
  return {
    timeoutMs,
    retryScheduleMs,
    disableAfterMs: duration(read, 'WEBHOOKS_DISABLE_AFTER', '5d'),
    allowPrivateNetworks: read.bool('WEBHOOKS_ALLOW_PRIVATE_NETWORKS', false),
    dnsServers: dnsServers(read),
    concurrency: read.intBetween('WEBHOOKS_CONCURRENCY', 64, 0, 1_000),
    pollIntervalMs: read.intBetween('WEBHOOKS_POLL_INTERVAL_MS', 500, 10, 60_000),
    leaseTtlMs,
    retentionDays: read.intBetween('WEBHOOKS_RETENTION_DAYS', 30, 1, 3_650),
    purgeIntervalMs: read.intBetween('WEBHOOKS_PURGE_INTERVAL_MS', 600_000, 1_000, 86_400_000),
  };
}
