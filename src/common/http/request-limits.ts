/** Limits on what one request may carry; each is far above what a legitimate client of this API sends. */
export const REQUEST_LIMITS = {
  /** Request bodies (decision 9); over it is 413. */
  bodyBytes: 1024 * 1024,
  /** Objects and arrays nested deeper than this are refused after parsing, before mapping; the ticket body is flat. */
  jsonDepth: 32,
  /** Query parameters per request; the API knows two. */
  queryParameters: 100,
} as const;
