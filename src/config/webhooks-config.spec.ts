import { EnvReader } from './env-reader.js';
import { parseDuration, parseWebhooksConfig } from './webhooks-config.js';

const parse = (env: Record<string, string> = {}) => parseWebhooksConfig(new EnvReader(env));

describe('webhooks settings', () => {
  it("defaults to Standard Webhooks' schedule, 15 s attempts, 5 days before disabling and public networks only", () => {
    expect(parse()).toEqual({
      timeoutMs: 15_000,
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000],
      disableAfterMs: 5 * 86_400_000,
      allowPrivateNetworks: false,
      dnsServers: [],
      concurrency: 64,
      pollIntervalMs: 500,
      leaseTtlMs: 30_000,
      retentionDays: 30,
      purgeIntervalMs: 600_000,
    });
  });

  it('reads durations with a unit', () => {
    expect([parseDuration('250ms'), parseDuration('5s'), parseDuration('30m'), parseDuration('2h'), parseDuration('5d')]).toEqual([
      250, 5_000, 1_800_000, 7_200_000, 432_000_000,
    ]);
    expect(parseDuration('5')).toBeUndefined();
    expect(parseDuration('1w')).toBeUndefined();
  });

  it('refuses a schedule that is not a list of durations, naming the variable', () => {
    expect(() => parse({ WEBHOOKS_RETRY_SCHEDULE: '5s,soon' })).toThrow(/^WEBHOOKS_RETRY_SCHEDULE must be/);
    expect(() => parse({ WEBHOOKS_DISABLE_AFTER: 'never' })).toThrow(/^WEBHOOKS_DISABLE_AFTER must be a duration/);
    expect(() => parse({ WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'yes' })).toThrow(/^WEBHOOKS_ALLOW_PRIVATE_NETWORKS/);
  });

  it('refuses a lease that would not outlast an attempt', () => {
    expect(() => parse({ WEBHOOKS_TIMEOUT_MS: '20000', WEBHOOKS_LEASE_TTL_MS: '20000' })).toThrow(
      'WEBHOOKS_LEASE_TTL_MS must be at least WEBHOOKS_TIMEOUT_MS + 1000 (21000), got 20000',
    );
    expect(parse({ WEBHOOKS_TIMEOUT_MS: '2000', WEBHOOKS_LEASE_TTL_MS: '3000' }).leaseTtlMs).toBe(3_000);
  });

  it('reads the DNS servers endpoint hosts are resolved with, and refuses what is not an address', () => {
    expect(parse({ WEBHOOKS_DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353,[2606:4700:4700::1111]:53' }).dnsServers).toEqual([
      '1.1.1.1',
      '127.0.0.1:5353',
      '[2606:4700:4700::1111]:53',
    ]);
    expect(() => parse({ WEBHOOKS_DNS_SERVERS: 'dns.example.com' })).toThrow(
      'WEBHOOKS_DNS_SERVERS must be comma-separated IP addresses, each with an optional :port, got "dns.example.com"',
    );
  });
});
