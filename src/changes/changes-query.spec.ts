import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { encodeChangeCursor } from './change-cursor.js';
import { parseChangesQuery } from './changes-query.js';

function problems(raw: Record<string, unknown>, lastEventId?: string): Array<{ field: string; code: string }> {
  try {
    parseChangesQuery(raw, lastEventId);
  } catch (error) {
    if (!(error instanceof ValidationFailedException)) throw error;
    return error.fieldErrors.map(({ field, code }) => ({ field, code }));
  }
  return [];
}

describe('parseChangesQuery', () => {
  it('reads from the oldest change kept, 100 at a time, without waiting, by default', () => {
    expect(parseChangesQuery({})).toEqual({ start: { fromOldest: true }, limit: 100, waitSeconds: 0 });
  });

  it('continues after a cursor, or after Last-Event-ID, which overrides after and since (EventSource reconnects to its first URL)', () => {
    expect(parseChangesQuery({ after: encodeChangeCursor(41), limit: '1000', waitSeconds: '30' })).toEqual({
      start: { afterSeq: 41 },
      limit: 1000,
      waitSeconds: 30,
    });
    expect(parseChangesQuery({}, encodeChangeCursor(9)).start).toEqual({ afterSeq: 9 });
    expect(parseChangesQuery({ after: encodeChangeCursor(3) }, encodeChangeCursor(9)).start).toEqual({ afterSeq: 9 });
    expect(parseChangesQuery({ since: '2026-11-22T20:37:14Z' }, encodeChangeCursor(9)).start).toEqual({ afterSeq: 9 });
  });

  it('starts at an ISO-8601 instant with since', () => {
    expect(parseChangesQuery({ since: '2026-11-22T20:37:14.123Z' }).start).toEqual({ since: new Date('2026-11-22T20:37:14.123Z') });
    expect(parseChangesQuery({ since: '2026-11-22T21:37:14+01:00' }).start).toEqual({ since: new Date('2026-11-22T20:37:14Z') });
  });

  it('names every problem at once', () => {
    expect(problems({ after: 'x', limit: '0', waitSeconds: '31', colour: 'red' })).toEqual([
      { field: 'colour', code: 'UnknownParameter' },
      { field: 'limit', code: 'Range' },
      { field: 'waitSeconds', code: 'Range' },
      { field: 'after', code: 'InvalidCursor' },
    ]);
    expect(problems({ since: 'yesterday', limit: 'ten' })).toEqual([
      { field: 'limit', code: 'typeMismatch' },
      { field: 'since', code: 'typeMismatch' },
    ]);
    expect(problems({ after: encodeChangeCursor(1), since: '2026-11-22T20:37:14Z' })).toEqual([{ field: 'since', code: 'InvalidCursor' }]);
    expect(problems({}, 'garbage')).toEqual([{ field: 'after', code: 'InvalidCursor' }]);
  });

  it('refuses an empty after= like any cursor it did not issue, rather than reading it as no cursor', () => {
    expect(problems({ after: '' })).toEqual([{ field: 'after', code: 'InvalidCursor' }]);
    expect(problems({ after: '', since: '2026-11-22T20:37:14Z' })).toEqual([{ field: 'after', code: 'InvalidCursor' }]);
    expect(problems({ after: '' }, '')).toEqual([{ field: 'after', code: 'InvalidCursor' }]);
    // Last-Event-ID overrides the URL's after, empty or not.
    expect(parseChangesQuery({ after: '' }, encodeChangeCursor(9)).start).toEqual({ afterSeq: 9 });
  });
});
