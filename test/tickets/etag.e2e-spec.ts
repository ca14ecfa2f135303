import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest, createTicket as createTicketThrough } from '../support/ticket-factory.js';

const STRONG_ETAG = /^"\d+-\d+"$/;

describe('ETag and If-Match (optimistic concurrency)', () => {
  const testApp = useTestApp();

  async function createTicket() {
    const response = await createTicketThrough(testApp.http);
    return { ticket: response.body, etag: response.headers.etag as string };
  }

  it('GET one answers a strong ETag that changes with every update, also when nothing changed', async () => {
    const { ticket } = await createTicket();
    const first = (await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200)).headers.etag;
    expect(first).toMatch(STRONG_ETAG);
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`)).headers.etag).toBe(first);

    const body = buildTicketRequest();
    const put = await testApp.http.put(`/api/tickets/${ticket.id}`).send(body).expect(200);
    const again = await testApp.http.put(`/api/tickets/${ticket.id}`).send(body).expect(200);
    expect(new Set([first, put.headers.etag, again.headers.etag]).size).toBe(3);
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`)).headers.etag).toBe(again.headers.etag);
  });

  it('sends no ETag of its own on a list or the health endpoint (no hash over every body)', async () => {
    await createTicket();
    for (const path of ['/api/tickets', '/api/v2/tickets', '/actuator/health']) {
      expect({ path, etag: (await testApp.http.get(path)).headers.etag }).toEqual({ path, etag: undefined });
    }
  });

  it('POST answers the ETag of the version it wrote', async () => {
    const { ticket, etag } = await createTicket();
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`)).headers.etag).toBe(etag);
  });

  it('answers 304 to a GET whose If-None-Match holds the current ETag', async () => {
    const { ticket, etag } = await createTicket();
    await testApp.http.get(`/api/tickets/${ticket.id}`).set('If-None-Match', etag).expect(304);
  });

  it('answers 304 to If-None-Match also when the request carries Cache-Control and Pragma no-cache, as browsers and fetch send it', async () => {
    const { ticket, etag } = await createTicket();
    for (const path of [`/api/tickets/${ticket.id}`, `/api/v2/tickets/${ticket.id}`]) {
      const response = await testApp.http
        .get(path)
        .set('If-None-Match', `"0-0", W/${etag}`)
        .set('Cache-Control', 'no-cache')
        .set('Pragma', 'no-cache');
      expect({ path, status: response.status, body: response.text, etag: response.headers.etag }).toEqual({
        path,
        status: 304,
        body: '',
        etag,
      });
    }
    const stale = await testApp.http
      .get(`/api/tickets/${ticket.id}`)
      .set('If-None-Match', '"0-0"')
      .set('Cache-Control', 'no-cache')
      .expect(200);
    expect(stale.body.id).toBe(ticket.id);
  });

  it('PUT with the current ETag in If-Match updates the ticket', async () => {
    const { ticket, etag } = await createTicket();
    const response = await testApp.http
      .put(`/api/tickets/${ticket.id}`)
      .set('If-Match', etag)
      .send(buildTicketRequest({ title: 'Checked' }))
      .expect(200);
    expect(response.body.title).toBe('Checked');
  });

  it('PUT with a stale If-Match answers 412 in the error shape and changes nothing', async () => {
    const { ticket, etag } = await createTicket();
    const current = (
      await testApp.http
        .put(`/api/tickets/${ticket.id}`)
        .send(buildTicketRequest({ title: 'Second writer' }))
        .expect(200)
    ).body;

    const response = await testApp.http
      .put(`/api/tickets/${ticket.id}`)
      .set('If-Match', etag)
      .send(buildTicketRequest({ title: 'Lost update' }))
      .expect(412);
    expect(response.body).toEqual({
      timestamp: expect.stringMatching(/\+00:00$/),
      status: 412,
      error: 'Precondition Failed',
      message: expect.stringContaining(`Ticket ${ticket.id} has been changed`),
      path: `/api/tickets/${ticket.id}`,
    });
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`)).body).toEqual(current);
  });

  it('DELETE with a stale If-Match answers 412 and keeps the ticket; with the current one it deletes', async () => {
    const { ticket, etag } = await createTicket();
    const updated = await testApp.http.put(`/api/tickets/${ticket.id}`).send(buildTicketRequest()).expect(200);

    await testApp.http.delete(`/api/tickets/${ticket.id}`).set('If-Match', etag).expect(412);
    await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200);
    await testApp.http.delete(`/api/tickets/${ticket.id}`).set('If-Match', updated.headers.etag).expect(204);
    await testApp.http.get(`/api/tickets/${ticket.id}`).expect(404);
  });

  it('takes If-Match "*" and lists of tags, and never matches a weak or unquoted tag', async () => {
    const { ticket, etag } = await createTicket();
    await testApp.http.put(`/api/tickets/${ticket.id}`).set('If-Match', `W/${etag}`).send(buildTicketRequest()).expect(412);
    await testApp.http.put(`/api/tickets/${ticket.id}`).set('If-Match', etag.replaceAll('"', '')).send(buildTicketRequest()).expect(412);
    const star = await testApp.http.put(`/api/tickets/${ticket.id}`).set('If-Match', '*').send(buildTicketRequest()).expect(200);
    await testApp.http
      .put(`/api/tickets/${ticket.id}`)
      .set('If-Match', `"0-0", ${star.headers.etag}`)
      .send(buildTicketRequest())
      .expect(200);
  });

  it('answers 404, not 412, for a missing ticket, and 400 for an invalid body, whatever If-Match says', async () => {
    await testApp.http.put('/api/tickets/987654321').set('If-Match', '"1-1"').send(buildTicketRequest()).expect(404);
    await testApp.http.delete('/api/tickets/987654321').set('If-Match', '*').expect(404);
    const { ticket } = await createTicket();
    await testApp.http
      .put(`/api/tickets/${ticket.id}`)
      .set('If-Match', '"1-1"')
      .send(buildTicketRequest({ title: '' }))
      .expect(400);
  });

  it('lets only one of two writers holding the same ETag win', async () => {
    const { ticket, etag } = await createTicket();
    const results = await Promise.all(
      ['Writer A', 'Writer B'].map((title) =>
        testApp.http.put(`/api/tickets/${ticket.id}`).set('If-Match', etag).send(buildTicketRequest({ title })),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
    const winner = results.find((r) => r.status === 200)!.body;
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`)).body).toEqual(winner);
  });
});
