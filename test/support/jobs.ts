import type { TestAppHandle } from './test-app.js';
import { waitWhileProgressing } from './waits.js';

type Json = Record<string, any>;

/** A job's reads through the API (docs/api.md#bulk-changes): the job, the job once finished, and every result page after page. */
export function jobReads(testApp: TestAppHandle, pageSize = 500) {
  const http = () => testApp.http;
  const job = async (id: number): Promise<Json> => (await http().get(`/api/v2/jobs/${id}`).expect(200)).body;
  /**
   * The job once finished, waited for as long as it moves on (it starts, or some line is done or failed, within
   * `stallMs`): ten thousand lines take a minute alone and several beside the other suites on a slow machine, so a bound
   * on the whole wait would fail a job that is only slow.
   */
  const finished = async (id: number, stallMs = 60_000): Promise<Json> => {
    let current = await job(id);
    // One read a round: `progress` describes what the `finished` just before it read.
    await waitWhileProgressing(
      async () => (current = await job(id)).finishedAt !== null,
      async () => `${current.status} ${current.total} ${current.done} ${current.failed}`,
      stallMs,
      `job ${id} finished`,
    );
    return current;
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
