import type { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import type { ChangeFeedRepository, FeedPage } from './change-feed.repository.js';
import type { ChangeNotifier } from './change-notifier.js';
import { ChangesService } from './changes.service.js';

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
    const service = new ChangesService(feed, {} as ChangeNotifier, config);

    const page = await service.page({ start: { fromOldest: true }, limit: 100, waitSeconds: 0 });
    expect(page.items.map((item) => item.eventId)).toEqual(['e11', 'e12']);
    expect((await service.first({ fromOldest: true }, 1)).start).toEqual({ seq: 20 });
  });
});
