import { jest } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import type { ChangeFeedRepository } from './change-feed.repository.js';
import type { ChangeNotifier } from './change-notifier.js';
import { ChangeSequencer } from './change-sequencer.js';
import type { ChangeSequencerRepository } from './change-sequencer.repository.js';

const LEASE_TTL_MS = 3000;

describe('ChangeSequencer', () => {
  afterEach(() => jest.restoreAllMocks());

  it('tries the lease another replica holds once per TTL/3, not on every pass', async () => {
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const runner = { connect: () => Promise.resolve(), release: () => Promise.resolve() };
    const dataSource = { createQueryRunner: () => runner } as unknown as DataSource;
    const claim = jest.fn(() => Promise.resolve<number | null>(null));
    const leases = { claim } as unknown as ChangeSequencerRepository;
    const config = {
      get: () => ({ leaseTtlMs: LEASE_TTL_MS, sequenceIntervalMs: 100, retentionDays: 7 }),
    } as unknown as ConfigService<AppConfig, true>;
    const sequencer = new ChangeSequencer(dataSource, {} as ChangeFeedRepository, leases, {} as ChangeNotifier, config);
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
    const runner = {
      connect: () => Promise.resolve(),
      release: () => Promise.resolve(),
      startTransaction: () => Promise.resolve(),
      commitTransaction: () => Promise.resolve(),
      isTransactionActive: false,
    };
    const dataSource = { createQueryRunner: () => runner } as unknown as DataSource;
    let prunedThrough = 0;
    const leases = {
      claim: () => Promise.resolve(1),
      fence: () => Promise.resolve({ lastSeq: 10_000, prunedThrough }),
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
    const sequencer = new ChangeSequencer(dataSource, feed, leases, {} as ChangeNotifier, config);
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
});
