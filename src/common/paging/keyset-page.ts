import { ValidationFailedException } from '../errors/validation-failed.exception.js';
import { type QueryDialect, QueryParameters } from './query-parameters.js';
import { decodePosition, encodePosition, queryFingerprint } from './cursor.js';
import { readLimit } from './page-limit.js';

/** A page of a list in id order (a ticket's comments, its history): how many, and after which id. */
export interface KeysetPageRequest {
  /** Absent: every item (v1 without `limit`, as the ticket list). */
  limit?: number;
  afterId?: number;
  /** Ties a cursor to the one list it came from. */
  fingerprint: string;
}

export interface KeysetPage<T> {
  items: T[];
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null;
}

export const KEYSET_PAGE_PARAMETERS = ['limit', 'cursor'] as const;

/**
 * `limit` and `cursor` of a sub-list, read like the ticket list's: v1 lists everything unless `limit` is given,
 * v2 pages by default and refuses unknown parameters. Every problem is one 400 naming them all, on the object
 * `objectName`. `list` names the list (e.g. `comments:42`), so a cursor of one list cannot continue another.
 */
export function parseKeysetPage(raw: Record<string, unknown>, dialect: QueryDialect, list: string, objectName: string): KeysetPageRequest {
  const params = new QueryParameters(raw, dialect, KEYSET_PAGE_PARAMETERS, objectName);
  const fingerprint = queryFingerprint({ list });
  const limit = readLimit(params, params.single('limit'));
  const cursor = params.single('cursor');
  let afterId: number | undefined;
  if (cursor !== undefined) {
    if (limit === undefined) {
      params.problem('cursor', 'InvalidCursor', 'java.lang.String', 'A cursor continues a paged list: give limit with it', cursor);
    } else {
      const position = decodePosition(cursor, fingerprint);
      if (position === 'other-query') {
        params.problem('cursor', 'InvalidCursor', 'java.lang.String', 'This cursor belongs to another list', cursor);
      } else if (position === 'unreadable' || position.length !== 1 || !Number.isSafeInteger(position[0]) || (position[0] as number) < 1) {
        params.problem('cursor', 'InvalidCursor', 'java.lang.String', 'Not a cursor this service issued, or one that was altered', cursor);
      } else {
        afterId = position[0] as number;
      }
    }
  }
  if (params.problems.length > 0) throw new ValidationFailedException(objectName, params.fieldErrors());
  return { fingerprint, ...(limit !== undefined && { limit }), ...(afterId !== undefined && { afterId }) };
}

/** SQL after `WHERE <parent> = ?`: the page's id range, order and size (one more row than asked, to see if more follow). */
export function keysetSql(page: KeysetPageRequest): { sql: string; params: number[] } {
  const after = page.afterId !== undefined ? ' AND id > ?' : '';
  const limit = page.limit !== undefined ? ' LIMIT ?' : '';
  const params = [...(page.afterId !== undefined ? [page.afterId] : []), ...(page.limit !== undefined ? [page.limit + 1] : [])];
  return { sql: `${after} ORDER BY id${limit}`, params };
}

/** Cuts the extra row off and makes the next cursor from the page's last item. */
export function keysetPage<T extends { id: number }>(rows: T[], page: KeysetPageRequest): KeysetPage<T> {
  if (page.limit === undefined || rows.length <= page.limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, page.limit);
  return { items, nextCursor: encodePosition(page.fingerprint, [items.at(-1)!.id]) };
}
