import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { QueryParameters } from '../common/paging/query-parameters.js';
import { decodeChangePosition } from './change-cursor.js';

export const CHANGES_LIMIT = { min: 1, max: 1000, default: 100 } as const;
export const MAX_WAIT_SECONDS = 30;

/**
 * Where a read of the feed starts: after a cursor's change (with when it was numbered, when the cursor says), at an
 * instant, or (neither) at the oldest change kept.
 */
export type ChangesStart = { afterSeq: number; numberedAt?: number } | { since: Date } | { fromOldest: true };

export interface ChangesQuery {
  start: ChangesStart;
  limit: number;
  /** Long-poll: how long to wait for a change when none follows the start (0: answer at once). */
  waitSeconds: number;
}

const PARAMETERS = ['after', 'since', 'limit', 'waitSeconds'] as const;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The feed's query, strict as every v2 list's: unknown or repeated parameters, a cursor this service did not issue
 * (or one that was altered), an empty `after=`, both `after` and `since`, and values out of range are one 400 naming
 * them all.
 * `lastEventId` (SSE's Last-Event-ID header), when present, overrides both `after` and `since`: EventSource
 * reconnects to the URL it was first given, so the header is the client's real position.
 */
export function parseChangesQuery(raw: Record<string, unknown>, lastEventId?: string): ChangesQuery {
  const params = new QueryParameters(raw, 'v2', PARAMETERS, 'changesQuery');
  const resumeFrom = lastEventId?.trim() || undefined;
  const after = resumeFrom ?? params.single('after');
  const since = resumeFrom === undefined ? params.single('since') : undefined;
  const limit = integer(params, 'limit', CHANGES_LIMIT.min, CHANGES_LIMIT.max, CHANGES_LIMIT.default);
  const waitSeconds = integer(params, 'waitSeconds', 0, MAX_WAIT_SECONDS, 0);
  let start: ChangesStart = { fromOldest: true };
  if (after !== undefined && since !== undefined) {
    params.problem('since', 'InvalidCursor', 'java.lang.String', 'Give either after (a cursor) or since (an instant), not both', since);
  } else if (after === undefined && raw.after === '') {
    // Unlike other parameters, an empty cursor is not "absent": a consumer that lost its cursor would silently
    // start over from the oldest change kept.
    params.problem(
      'after',
      'InvalidCursor',
      'java.lang.String',
      'An empty cursor: give a cursor of the change feed, or leave after out',
      '',
    );
  } else if (after !== undefined) {
    const position = decodeChangePosition(after);
    if (position === null)
      params.problem('after', 'InvalidCursor', 'java.lang.String', 'Not a cursor of the change feed, or one that was altered', after);
    else start = { afterSeq: position.seq, ...(position.numberedAt !== undefined && { numberedAt: position.numberedAt }) };
  } else if (since !== undefined) {
    const instant = new Date(since);
    if (!INSTANT.test(since) || Number.isNaN(instant.getTime())) {
      params.problem('since', 'typeMismatch', 'java.time.Instant', 'Not an ISO-8601 instant, e.g. 2026-11-22T20:37:14.123Z', since);
    } else start = { since: instant };
  }
  if (params.problems.length > 0) throw new ValidationFailedException('changesQuery', params.fieldErrors());
  return { start, limit, waitSeconds };
}

function integer(params: QueryParameters, name: string, min: number, max: number, fallback: number): number {
  const text = params.single(name);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) {
    params.problem(name, 'typeMismatch', 'java.lang.Integer', "Failed to convert value to required type 'java.lang.Integer'", text);
    return fallback;
  }
  if (Number(text) < min || Number(text) > max) {
    params.problem(name, 'Range', 'java.lang.Integer', `must be between ${min} and ${max}`, text, [max, min]);
    return fallback;
  }
  return Number(text);
}
