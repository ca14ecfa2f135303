import type { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import type { ChangeFeedRepository, FeedPage } from './change-feed.repository.js';
import type { ChangeNotifier } from './change-notifier.js';
import { ChangesService } from './changes.service.js';
import type { TicketAccessRepository } from '../people/ticket-access.repository.js';

const config = { get: () => ({ retentionDays: 7 }) } as unknown as ConfigService<AppConfig, true>;
const change = (seq: number) => ({
  seq,
  numberedAt: 0,
  payload: JSON.stringify({ eventId: `e${seq}`, eventType: 'CREATED', ticketId: 1 }),
});

describe('ChangesService', () => {
  it('never answers 410 to a read from the oldest change, though retention deletes changes between its statements', async () => {
    // Each read of the feed sees retention one batch further: the state a first read could meet under load.
    let prunedThrough = 0;
    const feed = {
      page: (afterSeq: number, limit: number): Promise<FeedPage> => {
        prunedThrough += 10;
        const changes = [prunedThrough + 1, prunedThrough + 2].filter((seq) => seq > afterSeq).map(change);
        return Promise.resolve({ lastSeq: prunedThrough + 2, prunedThrough, now: 0, changes: changes.slice(0, limit) });
      },
    } as unknown as ChangeFeedRepository;
    const service = new ChangesService(feed, {} as ChangeNotifier, {} as TicketAccessRepository, config);

    const page = await service.page({ start: { fromOldest: true }, limit: 100, waitSeconds: 0 });
    expect(page.items.map((item) => item.eventId)).toEqual(['e11', 'e12']);
    expect((await service.first({ fromOldest: true }, 1)).start).toEqual({ seq: 20 });
  });

  it("walks a requester's sparse changes window by window: an empty window moves the cursor past it, without waiting", async () => {
    const requester = { kind: 'requester', email: 'ann@example.com', domain: 'example.com', organization: null } as const;
    const kept = [5, 25_003];
    const reads: Array<[number, boolean]> = [];
    const feed = {
      page: (afterSeq: number, limit: number, only?: unknown): Promise<FeedPage> => {
        reads.push([afterSeq, only !== undefined]);
        const through = Math.min(afterSeq + 10_000, 30_000);
        const changes = kept
          .filter((seq) => seq > afterSeq && seq <= through)
          .map(change)
          .slice(0, limit);
        return Promise.resolve({ lastSeq: 30_000, prunedThrough: 0, now: 0, changes, scannedThrough: through });
      },
    } as unknown as ChangeFeedRepository;
    const notifier = { stopping: false, wait: () => Promise.reject(new Error('a requester with changes ahead must not wait')) };
    const access = { requester: () => Promise.resolve(requester) } as unknown as TicketAccessRepository;
    const service = new ChangesService(feed, notifier as unknown as ChangeNotifier, access, config);

    const first = await service.read({ seq: 0 }, 100, requester);
    expect([first.items.map((item) => item.eventId), first.next.seq, first.endOfStream]).toEqual([['e5'], 10_000, false]);
    const page = await service.page({ start: { afterSeq: 10_000 }, limit: 100, waitSeconds: 5 }, undefined, Infinity, requester);
    expect(page.items.map((item) => item.eventId)).toEqual(['e25003']);
    expect(reads).toEqual([
      [0, true],
      [10_000, true],
      [20_000, true],
    ]);
  });
});
