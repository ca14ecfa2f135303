import { OutboxRelay } from '../../src/outbox/outbox.relay.js';
import { useOwnDatabase } from '../support/database.js';
import { waitUntil } from '../support/waits.js';
import { createTestApp } from '../support/test-app.js';
import type { INestApplication } from '@nestjs/common';

const PARTITIONS = 4;
/** The shortest lease the settings accept for this poll interval (4 ×): renewed by the passes alone. */
const POLL_MS = 500;
const TTL_MS = 4 * POLL_MS;
const database = useOwnDatabase('lease_renewal');

/**
 * A relay renews its leases in its passes; between two passes, with no commit waking it, a lease must still be
 * valid. Its own database: no other relay shares the partitions.
 */
describe('Outbox relay leases at the shortest TTL the poll interval allows', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp({
      env: {
        DB_DATABASE: database,
        OUTBOX_PARTITIONS: String(PARTITIONS),
        OUTBOX_POLL_INTERVAL_MS: String(POLL_MS),
        OUTBOX_LEASE_TTL_MS: String(TTL_MS),
      },
    });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('holds every partition without a gap while idle, across many passes and renewals', async () => {
    const relay = app.get(OutboxRelay);
    await waitUntil(() => relay.heldPartitions().length === PARTITIONS, 10_000, 'every partition held');
    const gaps: string[] = [];
    const until = Date.now() + 3 * TTL_MS;
    while (Date.now() < until) {
      const held = relay.heldPartitions();
      if (held.length !== PARTITIONS) gaps.push(`${new Date().toISOString()}: holding ${held.join(', ') || 'none'}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(gaps).toEqual([]);
  });

  it('refuses a lease shorter than four poll intervals, which a pass would renew too late', async () => {
    await expect(
      createTestApp({ env: { DB_DATABASE: database, OUTBOX_POLL_INTERVAL_MS: String(POLL_MS), OUTBOX_LEASE_TTL_MS: String(TTL_MS - 1) } }),
    ).rejects.toThrow(`OUTBOX_LEASE_TTL_MS must be at least 4 × OUTBOX_POLL_INTERVAL_MS (${TTL_MS}), got ${TTL_MS - 1}`);
  });
});
