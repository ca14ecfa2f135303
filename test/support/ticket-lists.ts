import type request from 'supertest';
import type { Response } from 'supertest';

export type ApiVersion = 'v1' | 'v2';
export const COLLECTIONS: Record<ApiVersion, string> = { v1: '/api/tickets', v2: '/api/v2/tickets' };

/** A list answer of either version as one shape: v1's array and headers, v2's envelope. */
export interface ListAnswer {
  response: Response;
  ids: number[];
  items: Array<Record<string, any>>;
  total: number | null;
  nextCursor: string | null;
  /** The Link header's next URL, when there is one. */
  next?: string;
}

export async function listTickets(http: ReturnType<typeof request>, version: ApiVersion, query: string): Promise<ListAnswer> {
  const response = await http.get(`${COLLECTIONS[version]}${query ? `?${query}` : ''}`).expect(200);
  const next = /^<([^>]+)>; rel="next"$/.exec(response.headers.link ?? '')?.[1];
  const cursor = next ? new URL(next, 'http://host').searchParams.get('cursor') : null;
  const items: Array<Record<string, any>> = version === 'v1' ? response.body : response.body.items;
  const headerTotal = response.headers['x-total-count'] === undefined ? null : Number(response.headers['x-total-count']);
  if (version === 'v2') {
    expect(Object.keys(response.body)).toEqual(['items', 'nextCursor', 'total']);
    expect(response.body.nextCursor).toBe(cursor);
    expect(response.body.total).toBe(headerTotal);
  }
  return { response, items, ids: items.map((ticket) => ticket.id), total: headerTotal, nextCursor: cursor, ...(next && { next }) };
}

/** Follows the Link headers from a first page to the last, returning every page's ids. */
export async function walkPages(
  http: ReturnType<typeof request>,
  version: ApiVersion,
  query: string,
  between?: () => Promise<void>,
): Promise<number[][]> {
  const pages: number[][] = [];
  let answer = await listTickets(http, version, query);
  pages.push(answer.ids);
  while (answer.next) {
    await between?.();
    const url = answer.next;
    expect(url.startsWith(`${COLLECTIONS[version]}?`)).toBe(true);
    answer = await listTickets(http, version, url.slice(url.indexOf('?') + 1));
    pages.push(answer.ids);
  }
  return pages;
}
