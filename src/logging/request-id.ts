import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * A caller's id is kept only when it is short and plain: it is echoed in a header and written to every
 * log line of the request, so anything else (a list, control characters, a megabyte) gets a fresh id.
 */
const ACCEPTED_ID = /^[\w.:@/+=-]{1,128}$/;

/** The request's id: the caller's `X-Request-Id` when usable, else a new UUID; echoed on the response. */
export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && ACCEPTED_ID.test(given) ? given : randomUUID();
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}
