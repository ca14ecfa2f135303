import type { TestAppHandle } from './test-app.js';
import { waitUntil } from './waits.js';

type Json = Record<string, any>;

/** A job's reads through the API (docs/api.md#bulk-changes): the job, the job once finished, and every result page after page. */
export function jobReads(testApp: TestAppHandle, pageSize = 500) {
  const http = () => testApp.http;
  const job = async (id: number): Promise<Json> => (await http().get(`/api/v2/jobs/${id}`).expect(200)).body;
  const finished = async (id: number, timeoutMs = 60_000): Promise<Json> => {
    await waitUntil(async () => (await job(id)).finishedAt !== null, timeoutMs, `job ${id} finished`);
    return job(id);
  };
  const results = async (id: number): Promise<Json[]> => {
    const items: Json[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `limit=${pageSize}&cursor=${encodeURIComponent(cursor)}` : `limit=${pageSize}`;
      const page: { body: Json } = await http().get(`/api/v2/jobs/${id}/results?${query}`).expect(200);
      items.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor);
    return items;
  };
  return { job, finished, results };
}
