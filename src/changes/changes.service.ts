import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { currentRequestContext, runInRequestContext } from '../common/context/request-context.js';
import type { AppConfig } from '../config/app-config.js';
import { withinRequestDeadline } from '../database/request-deadline.js';
import { encodeChangeCursor } from './change-cursor.js';
import { ChangeFeedRepository, type FeedPage } from './change-feed.repository.js';
import { changeItem } from './change-item.js';
import { ChangeNotifier } from './change-notifier.js';
import { resyncRequired } from './resync-required.js';
import type { ChangesQuery, ChangesStart } from './changes-query.js';
import type { ChangeItemResponse } from './dto/change-item-response.dto.js';
import type { ChangePageResponse } from './dto/change-page-response.dto.js';

/** A read of the feed, and the position after it (what `nextCursor` encodes). */
export interface ChangesRead {
  items: ChangeItemResponse[];
  nextSeq: number;
  endOfStream: boolean;
  /** The position the read started after. */
  startSeq: number;
}

/**
 * Reads of the change feed: pages after a position, the 410 of a position retention has passed, and long-polls
 * that wait (without a database connection) for the next change.
 */
@Injectable()
export class ChangesService {
  private readonly retentionDays: number;

  constructor(
    private readonly feed: ChangeFeedRepository,
    private readonly notifier: ChangeNotifier,
    config: ConfigService<AppConfig, true>,
  ) {
    this.retentionDays = config.get('changes', { infer: true }).retentionDays;
  }

  /** One page of the feed as the JSON form answers it; with `waitSeconds`, a long-poll. */
  async page(query: ChangesQuery, signal?: AbortSignal): Promise<ChangePageResponse> {
    let read = await this.first(query.start, query.limit);
    const until = Date.now() + query.waitSeconds * 1000;
    while (read.items.length === 0 && Date.now() < until && !this.notifier.stopping && !signal?.aborted) {
      await this.notifier.wait(read.nextSeq, until - Date.now(), signal);
      read = await this.read(read.nextSeq, query.limit);
    }
    return { items: read.items, nextCursor: encodeChangeCursor(read.nextSeq), endOfStream: read.endOfStream };
  }

  /**
   * The first read of a request. Without a cursor it starts at the oldest change kept, in the read's own snapshot,
   * so retention deleting changes meanwhile never makes it a 410.
   */
  async first(start: ChangesStart, limit: number): Promise<ChangesRead> {
    if ('fromOldest' in start) return this.read(0, limit, true);
    return this.read(await this.startSeq(start), limit);
  }

  /** The position a read starts after: a cursor's (checked by the read), or since's. */
  private async startSeq(start: Exclude<ChangesStart, { fromOldest: true }>): Promise<number> {
    if ('afterSeq' in start) return start.afterSeq;
    const found = await this.fresh(() => this.feed.startAt(start.since));
    const cutoff = Date.now() - this.retentionDays * 86_400_000;
    if (found.prunedThrough > 0 && start.since.getTime() < cutoff)
      throw resyncRequired(`since is older than the ${this.retentionDays} days of changes kept`);
    return found.afterSeq;
  }

  /**
   * Up to `limit` changes after `afterSeq`; 410 when retention deleted changes after it (unless `fromOldest`: then
   * the read starts after what was deleted), or when it is beyond any number given (a cursor of another database,
   * or of one restored from an older backup).
   */
  async read(afterSeq: number, limit: number, fromOldest = false): Promise<ChangesRead> {
    const page: FeedPage = await this.fresh(() => this.feed.page(afterSeq, limit + 1));
    if (fromOldest) afterSeq = Math.max(afterSeq, page.prunedThrough);
    if (afterSeq < page.prunedThrough)
      throw resyncRequired(`Changes after this cursor were deleted: only ${this.retentionDays} days are kept`);
    if (afterSeq > page.lastSeq) throw resyncRequired('This cursor is not of this change feed');
    const changes = page.changes.slice(0, limit);
    const nextSeq = changes.length > 0 ? changes.at(-1)!.seq : Math.max(afterSeq, page.lastSeq);
    return { items: changes.map(changeItem), nextSeq, endOfStream: page.changes.length <= limit, startSeq: afterSeq };
  }

  /**
   * Each read of a long wait or a stream has a database deadline of its own (DB_QUERY_TIMEOUT_MS), as a request
   * has: the request's would have passed while it waited.
   */
  private fresh<T>(work: () => Promise<T>): Promise<T> {
    return runInRequestContext({ requestId: currentRequestContext()?.requestId }, () => withinRequestDeadline(work));
  }
}
