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
});
