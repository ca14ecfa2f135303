/**
 * ISO-8601 instants for the date filters: a date, a time of at least hours and minutes, optional seconds and
 * fraction, and a zone that is `Z` or an offset (`+02:00`). A date-time without a zone is refused: it would
 * mean a different instant on every server. A space before the offset is read as `+`, the sign a query
 * string turns into a space when a client forgets to encode it.
 */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+\- ])(\d{2}):(\d{2}))$/;

/** The range of a DATETIME column; an instant outside it could not be compared with what is stored. */
const EARLIEST = Date.UTC(1000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The instant as a millisecond timestamp, or undefined when the text is not one. Timestamps are stored to
 * the millisecond, so a finer instant is rounded up to the next millisecond: `createdAt >= t` and
 * `createdAt < t` then select exactly the rows they would with the full precision.
 */
export function parseInstant(text: string): number | undefined {
  const match = INSTANT.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zulu, sign, offsetHours, offsetMinutes] = match;
  const fields = [year, month, day, hour, minute, second].map(Number);
  const [y, mo, d, h, mi, s] = fields;
  const local = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(local);
  // Date.UTC rolls 2026-02-30 over into March; a real calendar date maps back to itself.
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    return undefined;
  }
  if (!zulu && (Number(offsetHours) > 18 || Number(offsetMinutes) > 59)) return undefined;
  const offsetMs = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const finer = /[1-9]/.test(fraction.slice(3)) ? 1 : 0;
  const instant = local - offsetMs + millis + finer;
  return instant >= EARLIEST && instant <= LATEST ? instant : undefined;
}
