import type { QueryParameters } from './query-parameters.js';

/** The page sizes a list takes: `limit` within min and max; v2 pages by default, v1 only when asked. */
export const PAGE_LIMIT = { min: 1, max: 1000, v2Default: 50 } as const;

/**
 * `limit` (as `params.single('limit')` read it), checked (a problem is recorded for a bad one): without it, the default page size in v2 and no paging in
 * v1.
 */
export function readLimit(params: QueryParameters, limitText: string | undefined): number | undefined {
  const absent = params.dialect === 'v2' ? PAGE_LIMIT.v2Default : undefined;
  if (limitText === undefined) return absent;
  if (!/^\d+$/.test(limitText)) {
    params.problem('limit', 'typeMismatch', 'java.lang.Integer', "Failed to convert value to required type 'java.lang.Integer'", limitText);
    return absent;
  }
  if (Number(limitText) < PAGE_LIMIT.min || Number(limitText) > PAGE_LIMIT.max) {
    params.problem('limit', 'Range', 'java.lang.Integer', `must be between ${PAGE_LIMIT.min} and ${PAGE_LIMIT.max}`, limitText, [
      PAGE_LIMIT.max,
      PAGE_LIMIT.min,
    ]);
    return absent;
  }
  return Number(limitText);
}
