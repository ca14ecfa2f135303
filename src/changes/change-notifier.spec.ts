import { jest } from '@jest/globals';
import { ChangeNotifier } from './change-notifier.js';
import type { ChangeFeedRepository } from './change-feed.repository.js';

describe('ChangeNotifier', () => {
  it('is awaited while a long-poll or stream waits, or while a listener says it waits, and tells listeners of each advance', async () => {
    const feed = { lastSeq: () => Promise.resolve(0) } as unknown as ChangeFeedRepository;
    const notifier = new ChangeNotifier(feed);
    let listening = false;
    const advanced = jest.fn();
    notifier.onAdvance(advanced, () => listening);
    try {
      expect(notifier.awaited).toBe(false);
      listening = true;
      expect(notifier.awaited).toBe(true);
      listening = false;

      const waiting = notifier.wait(0, 60_000);
      expect(notifier.awaited).toBe(true);
      notifier.advance(1);
      await waiting;
      expect(notifier.awaited).toBe(false);
      expect(advanced).toHaveBeenCalledTimes(1);

      notifier.advance(1); // nothing new
      expect(advanced).toHaveBeenCalledTimes(1);
    } finally {
      notifier.onModuleDestroy();
    }
  });
});
