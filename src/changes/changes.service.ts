import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { freeOfRequestDeadline } from '../database/request-deadline.js';
import { type ChangePosition, encodeChangeCursor } from './change-cursor.js';
import { ChangeFeedRepository, type FeedPage, type SequencedChange } from './change-feed.repository.js';
import { changeItem } from './change-item.js';
import { ChangeNotifier } from './change-notifier.js';
import { resyncRequired } from './resync-required.js';
import type { ChangesQuery, ChangesStart } from './changes-query.js';
import type { ChangeItemResponse } from './dto/change-item-response.dto.js';
import type { ChangePageResponse } from './dto/change-page-response.dto.js';
import { DESK, isRequester, type Viewer } from '../common/context/viewer.js';
import { visibleChanges } from '../people/visibility.js';
import { TicketAccessRepository } from '../people/ticket-access.repository.js';

/**
 * A cursor ahead of the numbering this replica's database has seen (a replica or Galera node that has not applied
 * the latest numbering yet) is read as "no change yet" while the change it names was numbered at most this long
 * ago on the database's clock; older, it is not a position this feed will reach (docs/changes.md).
 */
export const AHEAD_TOLERANCE_MS = 60_000;

/** A read of the feed, and the position after it (what `nextCursor` encodes). */
export interface ChangesRead {
  items: ChangeItemResponse[];
  next: ChangePosition;
  endOfStream: boolean;
  /** The position the read started after. */
  start: ChangePosition;
}

/**
 * Reads of the change feed: pages after a position, the 410 of a position retention has passed, and long-polls
 * that wait (without a database connection) for the next change.
 */
@Injectable()
export class ChangesService {
  private readonly retentionDays: number;
  /** The reads after a wait in flight (readAfterWait), by position and page size. */
  private readonly sharedReads = new Map<string, Promise<FeedPage>>();

  constructor(
    private readonly feed: ChangeFeedRepository,
    private readonly notifier: ChangeNotifier,
    private readonly access: TicketAccessRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    this.retentionDays = config.get('changes', { infer: true }).retentionDays;
  }

  /**
   * One page of the feed as the JSON form answers it; with `waitSeconds`, a long-poll, which waits until `notAfter`
   * at the latest (when its token expires, or the longest a stream lives).
   */
  async page(query: ChangesQuery, signal?: AbortSignal, notAfter = Infinity, viewer: Viewer = DESK): Promise<ChangePageResponse> {
    let read = await this.first(query.start, query.limit, viewer);
    const until = Math.min(Date.now() + query.waitSeconds * 1000, notAfter);
    while (read.items.length === 0 && Date.now() < until && !this.notifier.stopping && !signal?.aborted) {
      if (read.endOfStream) await this.notifier.wait(read.next.seq, until - Date.now(), signal);
      read = await this.readAfterWait(read.next, query.limit, viewer);
    }
    return { items: read.items, nextCursor: encodeChangeCursor(read.next.seq, read.next.numberedAt), endOfStream: read.endOfStream };
  }

  /**
   * The first read of a request. Without a cursor it starts at the oldest change kept, in the read's own snapshot,
   * so retention deleting changes meanwhile never makes it a 410.
   */
  async first(start: ChangesStart, limit: number, viewer: Viewer = DESK): Promise<ChangesRead> {
    if ('fromOldest' in start) return this.read({ seq: 0 }, limit, viewer, true);
    if ('afterSeq' in start) return this.read({ seq: start.afterSeq, numberedAt: start.numberedAt }, limit, viewer);
    return this.read({ seq: await this.sinceSeq(start.since) }, limit, viewer);
  }

  /** The position a read from `since` starts after. */
  private async sinceSeq(since: Date): Promise<number> {
    const found = await freeOfRequestDeadline(() => this.feed.startAt(since));
    const cutoff = Date.now() - this.retentionDays * 86_400_000;
    if (found.prunedThrough > 0 && since.getTime() < cutoff)
      throw resyncRequired(`since is older than the ${this.retentionDays} days of changes kept`);
    return found.afterSeq;
  }

  /**
   * Up to `limit` changes after `after`; 410 when retention deleted changes after it (unless `fromOldest`: then
   * the read starts after what was deleted). A position beyond the highest number given is "no change yet" while
   * it may be one this database has not seen numbered yet (aheadButRecent); otherwise 410 (a cursor of another
   * database, or of one restored from an older backup).
   */
  async read(after: ChangePosition, limit: number, viewer: Viewer = DESK, fromOldest = false): Promise<ChangesRead> {
    // A requester's organization is read again for each read, so a stream follows a change of its sharing at once.
    const only = isRequester(viewer) ? visibleChanges(await this.access.requester(viewer.email)) : undefined;
    const page = await freeOfRequestDeadline(() => this.feed.page(after.seq, limit + 1, only));
    return this.readPage(after, limit, page, viewer, fromOldest);
  }

  /**
   * The read of a long-poll or stream after its wait for a change beyond `after`. Readers at one position woken by
   * a new high mark share one read of the feed. A read is started here only once the notifier knows of a number
   * beyond the position, and a reader waits only while it knows of none (the high mark only rises), so a shared
   * read always started at or after the wake-up of every reader it is handed to, and sees the change that woke
   * them. A reader whose wait ended otherwise (time, shutdown) reads on its own.
   */
  async readAfterWait(after: ChangePosition, limit: number, viewer: Viewer = DESK): Promise<ChangesRead> {
    // A requester's read is their own (see read): only the desk's are shared.
    if (this.notifier.highMark <= after.seq || isRequester(viewer)) return this.read(after, limit, viewer);
    const key = `${after.seq}:${limit}`;
    let page = this.sharedReads.get(key);
    if (!page) {
      page = freeOfRequestDeadline(() => this.feed.page(after.seq, limit + 1));
      const forget = () => this.sharedReads.delete(key);
      page.then(forget, forget);
      this.sharedReads.set(key, page);
    }
    return this.readPage(after, limit, await page, viewer);
  }

  private readPage(after: ChangePosition, limit: number, page: FeedPage, viewer: Viewer, fromOldest = false): ChangesRead {
    const item = (change: SequencedChange) => changeItem(change, viewer);
    if (fromOldest && after.seq < page.prunedThrough) after = { seq: page.prunedThrough };
    if (after.seq < page.prunedThrough)
      throw resyncRequired(`Changes after this cursor were deleted: only ${this.retentionDays} days are kept`);
    if (after.seq > page.lastSeq) {
      if (!aheadButRecent(after, page.now)) throw resyncRequired('This cursor is not of this change feed');
      return { items: [], next: after, endOfStream: true, start: after };
    }
    const changes = page.changes.slice(0, limit);
    const last = changes.at(-1);
    if (page.scannedThrough !== undefined && page.changes.length <= limit) {
      // A filtered read that kept fewer than a page: it goes on after what it looked at, kept or not.
      const through = page.scannedThrough;
      // Below the highest number, the database's clock now stands for when it was reached (see aheadButRecent).
      const next = { seq: through, numberedAt: through === page.lastSeq ? page.lastNumberedAt : page.now };
      return { items: changes.map(item), next, endOfStream: through >= page.lastSeq, start: after };
    }
    const next = last ? { seq: last.seq, numberedAt: last.numberedAt } : { seq: page.lastSeq, numberedAt: page.lastNumberedAt };
    return { items: changes.map(item), next, endOfStream: page.changes.length <= limit, start: after };
  }
}

/**
 * Whether a position beyond the highest number this database has given may still be reached here: its change was
 * numbered within AHEAD_TOLERANCE_MS of the database's clock now (either way, for clocks a little apart). A cursor
 * that does not say when (issued before cursors said it) never is.
 */
function aheadButRecent(after: ChangePosition, now: number): boolean {
  return after.numberedAt !== undefined && Math.abs(now - after.numberedAt) <= AHEAD_TOLERANCE_MS;
}
