import { jest } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import type { Database } from '../database/database.js';
import type { AppConfig } from '../config/app-config.js';
import { ChangeFeedRepository } from './change-feed.repository.js';
import type { ChangeNotifier } from './change-notifier.js';
import { ChangeSequencer } from './change-sequencer.js';
import { ChangeSequencerRepository } from './change-sequencer.repository.js';

const LEASE_TTL_MS = 3000;

describe('ChangeSequencer', () => {
  afterEach(() => jest.restoreAllMocks());

  it('tries the lease another replica holds once per TTL/3, not on every pass', async () => {
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const runner = { connect: () => Promise.resolve(), release: () => Promise.resolve() };
    const database = { withWorkerConnection: (work: (connection: unknown) => Promise<unknown>) => work(runner) } as unknown as Database;
    const claim = jest.fn(() => Promise.resolve<number | null>(null));
    const leases = { claim } as unknown as ChangeSequencerRepository;
    const config = {
      get: () => ({ leaseTtlMs: LEASE_TTL_MS, sequenceIntervalMs: 100, retentionDays: 7 }),
    } as unknown as ConfigService<AppConfig, true>;
    const sequencer = new ChangeSequencer(database, {} as ChangeFeedRepository, leases, {} as ChangeNotifier, config);
    // prune() waits for the running pass (and does nothing more on a replica without the lease).
    const pass = async () => {
      sequencer.kick();
      expect(await sequencer.prune()).toBe(false);
    };

    await pass();
    expect(claim).toHaveBeenCalledTimes(1);
    now += 100;
    await pass();
    now += LEASE_TTL_MS / 3 - 200;
    await pass();
    expect(claim).toHaveBeenCalledTimes(1);
    now += 100;
    await pass();
    expect(claim).toHaveBeenCalledTimes(2);
  });

  it('deletes one batch of expired changes per pass, so a backlog never holds up numbering', async () => {
    const runner = { connect: () => Promise.resolve(), release: () => Promise.resolve(), query: () => Promise.resolve() };
    const database = { withWorkerConnection: (work: (connection: unknown) => Promise<unknown>) => work(runner) } as unknown as Database;
    let prunedThrough = 0;
    const leases = {
      claim: () => Promise.resolve(1),
      beginFenced: () => Promise.resolve({ lastSeq: 10_000, prunedThrough }),
      setPrunedThrough: (_runner: unknown, through: number) => Promise.resolve(void (prunedThrough = through)),
    } as unknown as ChangeSequencerRepository;
    // Three full batches past retention, then nothing more.
    const oldest = jest.fn((_runner: unknown, afterSeq: number, limit: number) =>
      Promise.resolve(afterSeq >= 3 * limit ? [] : Array.from({ length: limit }, (_, i) => ({ seq: afterSeq + i + 1, expired: true }))),
    );
    const feed = {
      anyUnsequenced: () => Promise.resolve(false),
      oldest,
      deleteRange: () => Promise.resolve(),
    } as unknown as ChangeFeedRepository;
    const config = {
      get: () => ({ leaseTtlMs: LEASE_TTL_MS, sequenceIntervalMs: 100, retentionDays: 7 }),
    } as unknown as ConfigService<AppConfig, true>;
    const sequencer = new ChangeSequencer(database, feed, leases, {} as ChangeNotifier, config);
    // Every stub answers at once: a pass is over when the microtasks it queued are.
    const pass = async () => {
      sequencer.kick();
      await new Promise((resolve) => setImmediate(resolve));
    };

    await pass();
    expect(sequencer.isSequencer()).toBe(true);
    expect(oldest).toHaveBeenCalledTimes(1);
    expect(prunedThrough).toBe(1000);
    await pass();
    expect(oldest).toHaveBeenCalledTimes(2);
    expect(prunedThrough).toBe(2000);
  });

  /** A sequencer on real repositories whose runner answers from `answer` and records what it was sent. */
  function sequencerAnswering(answer: (sql: string, owner: string) => unknown, readers = { awaited: false }) {
    const sent: string[] = [];
    const runner = {
      connect: () => Promise.resolve(),
      release: () => Promise.resolve(),
      query: (sql: string) => Promise.resolve(void sent.push(sql)).then(() => answer(sql, sequencer.owner)),
    };
    const database = { withWorkerConnection: (work: (connection: unknown) => Promise<unknown>) => work(runner) } as unknown as Database;
    const advance = jest.fn();
    const config = {
      get: () => ({ leaseTtlMs: LEASE_TTL_MS, sequenceIntervalMs: 100, retentionDays: 7 }),
    } as unknown as ConfigService<AppConfig, true>;
    const sequencer = new ChangeSequencer(
      database,
      new ChangeFeedRepository(database),
      new ChangeSequencerRepository(),
      {
        advance,
        get awaited() {
          return readers.awaited;
        },
      } as unknown as ChangeNotifier,
      config,
    );
    return { sequencer, sent, advance };
  }

  /** What the database answers the statements of a pass by the lease holder, but for `override`'s. */
  const holder =
    (override: (sql: string) => unknown = () => undefined) =>
    (sql: string, owner: string): unknown => {
      const overridden = override(sql);
      if (overridden !== undefined) return overridden;
      if (sql.startsWith('SELECT 1 FROM change_log')) return [{ 1: 1 }];
      if (sql.startsWith('SELECT owner, epoch')) return [{ owner, epoch: '3' }];
      if (sql.startsWith('START TRANSACTION')) return [{}, { affectedRows: 1 }, [{ last_seq: '10', pruned_through: '0' }]];
      if (sql.startsWith('SELECT id FROM change_log')) return [{ id: '11' }, { id: '12' }];
      if (sql.startsWith('SELECT seq')) return [];
      return { affectedRows: 1 };
    };

  it('writes nothing and rolls back when the fence finds the lease taken over', async () => {
    const { sequencer, sent, advance } = sequencerAnswering(
      holder((sql) =>
        sql.startsWith('START TRANSACTION') ? [{}, { affectedRows: 0 }, [{ last_seq: '10', pruned_through: '0' }]] : undefined,
      ),
    );
    sequencer.kick();
    await sequencer.prune();

    expect(sequencer.isSequencer()).toBe(false);
    expect(advance).not.toHaveBeenCalled();
    const numbering = sent.slice(sent.findIndex((sql) => sql.startsWith('START TRANSACTION')));
    expect(numbering).toEqual([expect.stringMatching(/^START TRANSACTION/), 'ROLLBACK']);
  });

  it('rolls back and gives the lease up locally when the COMMIT round trip loses a race', async () => {
    const deadlock = Object.assign(new Error('Deadlock found when trying to get lock'), { errno: 1213 });
    const { sequencer, sent, advance } = sequencerAnswering(
      holder((sql) => (sql.endsWith('COMMIT') ? Promise.reject(deadlock) : undefined)),
    );
    sequencer.kick();
    await sequencer.prune();

    expect(sequencer.isSequencer()).toBe(false);
    expect(advance).not.toHaveBeenCalled();
    expect(sent.at(-1)).toBe('ROLLBACK');
  });

  it('numbers a batch in three round trips: the fence with the state, the unnumbered ids, the numbers with COMMIT', async () => {
    const { sequencer, sent, advance } = sequencerAnswering(holder());
    sequencer.kick();
    await sequencer.prune();

    expect(advance).toHaveBeenCalledWith(12);
    const numbering = sent.slice(sent.findIndex((sql) => sql.startsWith('START TRANSACTION')));
    const roundTrips = numbering.slice(0, numbering.findIndex((sql) => sql.endsWith('COMMIT')) + 1);
    expect(roundTrips).toHaveLength(3);
    expect(roundTrips[0].split(';\n').map((sql) => sql.split(' ', 2).join(' '))).toEqual([
      'START TRANSACTION',
      'UPDATE change_feed_sequencer',
      'SELECT last_seq,',
    ]);
    expect(roundTrips[1]).toMatch(/^SELECT id FROM change_log WHERE seq IS NULL/);
    expect(roundTrips[2].split(';\n').map((sql) => sql.split(' ', 2).join(' '))).toEqual([
      'UPDATE change_feed_sequencer',
      'UPDATE change_log',
      'COMMIT',
    ]);
  });

  it('numbers after a commit only on the replica holding the lease, and only while a reader waits for new numbers', async () => {
    const readers = { awaited: true };
    const { sequencer, sent } = sequencerAnswering(holder(), readers);
    // A pass looks for unnumbered changes once the lease is held; prune() waits for the pass in progress.
    const passes = () => sent.filter((sql) => sql.startsWith('SELECT 1 FROM change_log')).length;
    const commit = async () => {
      sequencer.committed();
      await sequencer.prune();
    };

    await commit();
    expect(sent).toEqual([]);
    sequencer.kick(); // the timed pass, which claims the lease
    await sequencer.prune();
    expect([sequencer.isSequencer(), passes()]).toEqual([true, 1]);
    readers.awaited = false;
    await commit();
    expect(passes()).toBe(1);
    readers.awaited = true;
    await commit();
    expect(passes()).toBe(2);
  });
});
