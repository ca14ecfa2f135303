import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliveryReport, received as steps, writeTickets } from '../support/delivery.js';
import { waitUntil } from '../support/waits.js';
import { EventConsumer } from '../support/event-consumer.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest, createTicket } from '../support/ticket-factory.js';
import { type ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver.js';
import { deliveriesOf, registerWebhook } from '../support/webhook-endpoints.js';

type Json = Record<string, any>;

/** Short retries, so that a test sees several attempts; twenty, so that a delivery failing 30 % at random still succeeds. */
const FAST = {
  WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOKS_POLL_INTERVAL_MS: '100',
  WEBHOOKS_RETRY_SCHEDULE: Array(20).fill('1s').join(','),
};

async function listen(app: INestApplication): Promise<string> {
  const server = app.getHttpServer() as Server;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const webhookIdOfTicket = (receiver: WebhookReceiver, ticketId: number) =>
  receiver.received.find((r) => r.json.data?.ticketId === ticketId)?.headers['webhook-id'];

const eventIds = (requests: ReceivedWebhook[]) => requests.map((request) => request.json.data.eventId);

describe('Webhook delivery', () => {
  describe('signed, in order, retried', () => {
    const testApp = useTestApp({ env: FAST });
    const http = () => testApp.http;
    let receiver: WebhookReceiver;
    let everything: EventConsumer;
    let webhook: Json;
    beforeAll(async () => {
      receiver = await WebhookReceiver.start();
      everything = await EventConsumer.bound('ticket.#');
    });
    afterEach(async () => {
      if (webhook) await http().delete(`/api/v2/webhooks/${webhook.id}`);
    });
    afterAll(async () => {
      await everything.stop();
      await receiver.stop();
    });

    it('sends every kind as Standard Webhooks 1.0 that the standardwebhooks verifier accepts, data being the RabbitMQ event byte for byte (but for the tags v1 leaves out)', async () => {
      receiver.received.length = 0;
      webhook = await registerWebhook(http(), receiver);
      const ticket = (await createTicket(http())).body;
      await http().patch(`/api/tickets/${ticket.id}`).send({ status: 'IN_PROGRESS' }).expect(200);
      await http().post(`/api/tickets/${ticket.id}/comments`).send({ body: 'On it' }).expect(201);
      await http().delete(`/api/tickets/${ticket.id}`).expect(204);
      await waitUntil(() => receiver.received.length >= 4, 30_000, 'four deliveries');
      await everything.waitFor(() => everything.forTicket(ticket.id).length >= 4);

      expect(receiver.received.map((r) => r.json.type)).toEqual([
        'ticket.created',
        'ticket.updated',
        'ticket.comment.added',
        'ticket.deleted',
      ]);
      for (const request of receiver.received) {
        expect(request.verified).toEqual([true]);
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.headers['webhook-id']).toBe(request.json.data.eventId);
        expect(request.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
        expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
        expect(request.json.timestamp).toBe(request.json.data.occurredAt);
        const message = everything.messages.find((m) => m.properties.messageId === request.json.data.eventId)!;
        // data is the change as recorded: the RabbitMQ message, byte for byte, but for the ticket's tags, which the v1 key leaves out.
        const published = message.content.toString('utf8');
        const data =
          message.fields.routingKey === 'ticket.routing.key'
            ? JSON.stringify({ ...JSON.parse(published), ticket: { ...JSON.parse(published).ticket, tags: [], fields: {} } })
            : published;
        expect(request.body).toBe(`{"type":"${request.json.type}","timestamp":"${request.json.timestamp}","data":${data}}`);
      }
      // The receiver answers before the outcome is recorded.
      let listed: Json[] = [];
      await waitUntil(
        async () => (listed = await deliveriesOf(http(), webhook.id)).every((d) => d.status !== 'pending'),
        30_000,
        'four recorded outcomes',
      );
      expect(listed.map((d) => d.type)).toEqual(['ticket.deleted', 'ticket.comment.added', 'ticket.updated', 'ticket.created']);
      expect(listed[0]).toEqual({
        id: expect.any(Number),
        eventId: receiver.received[3].json.data.eventId,
        type: 'ticket.deleted',
        ticketId: ticket.id,
        occurredAt: receiver.received[3].json.timestamp,
        status: 'succeeded',
        attempts: 1,
        lastAttemptAt: expect.any(String),
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
        durationMs: expect.any(Number),
      });
    });

    it('sends only the kinds an endpoint subscribes to', async () => {
      receiver.received.length = 0;
      webhook = await registerWebhook(http(), receiver, { eventTypes: ['COMMENT_ADDED'] });
      const ticket = (await createTicket(http())).body;
      await http().post(`/api/tickets/${ticket.id}/comments`).send({ body: 'Only this' }).expect(201);
      await waitUntil(() => receiver.received.length >= 1, 30_000, 'the comment delivery');
      await http().put(`/api/tickets/${ticket.id}`).send(buildTicketRequest()).expect(200);
      await http().post(`/api/tickets/${ticket.id}/comments`).send({ body: 'And this' }).expect(201);
      await waitUntil(() => receiver.received.length >= 2, 30_000, 'the second comment delivery');
      expect(receiver.received.map((r) => r.json.type)).toEqual(['ticket.comment.added', 'ticket.comment.added']);
    });

    it('signs with both the new and the previous secret for a day after a rotation', async () => {
      receiver.received.length = 0;
      webhook = await registerWebhook(http(), receiver);
      const old = receiver.secrets[0];
      const rotated = (await http().post(`/api/v2/webhooks/${webhook.id}/rotate-secret`).expect(200)).body;
      receiver.secrets = [rotated.secret, old];
      await createTicket(http());
      await waitUntil(() => receiver.received.length >= 1, 30_000, 'a delivery');
      const [request] = receiver.received;
      expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(request.verified).toEqual([true, true]);
    });

    it("keeps each ticket's events in order under 500 concurrent updates of 20 tickets while the receiver fails 30 % with 500", async () => {
      receiver.received.length = 0;
      receiver.respond = () => ({ status: Math.random() < 0.3 ? 500 : 204 });
      webhook = await registerWebhook(http(), receiver, { eventTypes: ['CREATED', 'UPDATED'] });
      const url = await listen(testApp.app);
      const expected = await writeTickets([{ url }], 20, 25);
      const total = [...expected.values()].reduce((sum, n) => sum + n, 0);
      const ours = () => receiver.accepted().filter((r) => expected.has(r.json.data.ticketId));
      await waitUntil(() => new Set(eventIds(ours())).size >= total, 180_000, `${total} accepted deliveries`);
      receiver.respond = () => ({ status: 204 });

      const report = deliveryReport(steps(ours().map((r) => r.json.data)), expected);
      expect(report).toEqual({ lost: 0, duplicates: 0, outOfOrder: [] });
      expect(receiver.received.every((r) => r.verified[0])).toBe(true);
      expect(receiver.received.some((r) => r.status === 500)).toBe(true);
      // Stronger than the order of successes: no event of a ticket was even sent before the one before it succeeded,
      // and none was sent again once accepted.
      for (const ticketId of expected.keys()) {
        let acceptedUpTo = -1;
        for (const request of receiver.received.filter((r) => r.json.data.ticketId === ticketId)) {
          const step = Number(/step (\d+)/.exec(request.json.data.ticket.title)![1]);
          expect(step).toBe(acceptedUpTo + 1);
          if (request.status < 300) acceptedUpTo = step;
        }
      }
      const failedAttempts = (await deliveriesOf(http(), webhook.id)).filter((d) => d.attempts > 1);
      expect(failedAttempts.length).toBeGreaterThan(0);
    }, 240_000);

    it('sends a signed test request on demand and answers its outcome without the receiver body', async () => {
      receiver.received.length = 0;
      webhook = await registerWebhook(http(), receiver);
      const ok = await http().post(`/api/v2/webhooks/${webhook.id}/test`).expect(200);
      expect(ok.body).toEqual({ eventId: expect.any(String), success: true, statusCode: 204, error: null, durationMs: expect.any(Number) });
      expect(receiver.received[0]).toMatchObject({ verified: [true], json: { type: 'webhook.test', data: { eventId: ok.body.eventId } } });
      receiver.respond = () => ({ status: 500 });
      const failed = await http().post(`/api/v2/webhooks/${webhook.id}/test`).expect(200);
      receiver.respond = () => ({ status: 204 });
      expect(failed.body).toMatchObject({ success: false, statusCode: 500, error: 'HTTP 500 Internal Server Error' });
      expect(JSON.stringify(failed.body)).not.toContain('the receiver says no');
      expect(await deliveriesOf(http(), webhook.id)).toEqual([]);
    });

    it('treats 3xx as a failure and never follows the redirect; the receiver body is never echoed', async () => {
      receiver.received.length = 0;
      receiver.respond = ({ index }) =>
        index === 0 ? { status: 302, headers: { Location: receiver.url('/elsewhere') } } : { status: 204 };
      webhook = await registerWebhook(http(), receiver);
      await createTicket(http());
      await waitUntil(() => receiver.accepted().length >= 1, 30_000, 'the retry after the redirect');
      receiver.respond = () => ({ status: 204 });
      expect(receiver.received.map((r) => r.status)).toEqual([302, 204]);
      expect(receiver.received.every((r) => r.headers.host === `127.0.0.1:${receiver.port}`)).toBe(true);
      expect(receiver.received[1].headers['webhook-id']).toBe(receiver.received[0].headers['webhook-id']);
      // The receiver answers before the outcome is recorded.
      await waitUntil(async () => (await deliveriesOf(http(), webhook.id))[0].status !== 'pending', 30_000, 'the outcome recorded');
      const [delivery] = await deliveriesOf(http(), webhook.id);
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 204 });
    });

    it('records a failed attempt with a status line of its own, never the body', async () => {
      receiver.received.length = 0;
      receiver.respond = () => ({ status: 500 });
      webhook = await registerWebhook(http(), receiver);
      await createTicket(http());
      await waitUntil(async () => (await deliveriesOf(http(), webhook.id))[0]?.attempts >= 1, 30_000, 'a failed attempt');
      receiver.respond = () => ({ status: 204 });
      const [delivery] = await deliveriesOf(http(), webhook.id);
      expect(delivery).toMatchObject({ lastStatusCode: 500, lastError: 'HTTP 500 Internal Server Error' });
      expect(delivery.lastError).not.toContain('the receiver says no');
    });

    it('holds pending deliveries while the endpoint is disabled and sends them once it is enabled again', async () => {
      receiver.received.length = 0;
      receiver.respond = () => ({ status: 500 });
      webhook = await registerWebhook(http(), receiver);
      await createTicket(http());
      await waitUntil(() => receiver.received.length >= 1, 30_000, 'a failed attempt');
      await http().patch(`/api/v2/webhooks/${webhook.id}`).send({ enabled: false }).expect(200);
      receiver.respond = () => ({ status: 204 });
      await http().patch(`/api/v2/webhooks/${webhook.id}`).send({ enabled: true }).expect(200);
      await waitUntil(() => receiver.accepted().length >= 1, 30_000, 'the delivery after enabling');
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      await waitUntil(async () => (await deliveriesOf(http(), webhook.id))[0].status === 'succeeded', 10_000, 'the success recorded');
    });

    it('redelivers one delivery, and replays a window in order', async () => {
      receiver.received.length = 0;
      webhook = await registerWebhook(http(), receiver);
      const since = new Date().toISOString();
      const ticket = (await createTicket(http())).body;
      for (let i = 0; i < 3; i++)
        await http()
          .put(`/api/tickets/${ticket.id}`)
          .send(buildTicketRequest({ title: `step ${i + 1}` }))
          .expect(200);
      await waitUntil(() => receiver.accepted().length >= 4, 30_000, 'four deliveries');
      const first = eventIds(receiver.received);

      const [newest] = await deliveriesOf(http(), webhook.id);
      const redelivered = await http().post(`/api/v2/webhooks/${webhook.id}/deliveries/${newest.id}/redeliver`).expect(202);
      expect(redelivered.body).toMatchObject({ eventId: newest.eventId, status: 'pending', attempts: 0 });
      await waitUntil(() => receiver.received.length >= 5, 30_000, 'the redelivery');
      expect(receiver.received[4].headers['webhook-id']).toBe(newest.eventId);
      expect(receiver.received[4].verified).toEqual([true]);

      const replay = await http().post(`/api/v2/webhooks/${webhook.id}/replay`).query({ since }).expect(202);
      expect(replay.body).toEqual({ replayed: 4 });
      await waitUntil(() => receiver.received.length >= 9, 30_000, 'the replay');
      expect(eventIds(receiver.received.slice(5))).toEqual(first);
      const missing = await http().post(`/api/v2/webhooks/${webhook.id}/deliveries/999999999/redeliver`);
      expect(missing.status).toBe(404);
    });

    it('disables an endpoint that answers 410 Gone, with a WEBHOOK_DISABLED event on ticket.webhook.disabled', async () => {
      receiver.received.length = 0;
      receiver.respond = () => ({ status: 410 });
      webhook = await registerWebhook(http(), receiver, { description: 'going away' });
      await createTicket(http());
      await waitUntil(async () => !(await http().get(`/api/v2/webhooks/${webhook.id}`)).body.enabled, 30_000, 'the endpoint disabled');
      receiver.respond = () => ({ status: 204 });
      const endpoint = (await http().get(`/api/v2/webhooks/${webhook.id}`).expect(200)).body;
      expect(endpoint.disabledReason).toBe('the endpoint answered 410 Gone');
      const [delivery] = await deliveriesOf(http(), webhook.id);
      expect(delivery).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410 });
      await everything.waitFor(() => everything.bodies().some((b) => b.eventType === 'WEBHOOK_DISABLED' && b.webhook.id === webhook.id));
      const message = everything.messages.find(
        (m) => m.properties.type === 'WEBHOOK_DISABLED' && JSON.parse(m.content.toString()).webhook.id === webhook.id,
      )!;
      expect(message.fields.routingKey).toBe('ticket.webhook.disabled');
      expect(JSON.parse(message.content.toString())).toEqual({
        eventId: message.properties.messageId,
        eventType: 'WEBHOOK_DISABLED',
        occurredAt: expect.any(String),
        ticketId: 0,
        webhook: { id: webhook.id, description: 'going away', reason: 'the endpoint answered 410 Gone' },
      });
      // A disabled endpoint gets no new deliveries.
      await createTicket(http());
      expect(await deliveriesOf(http(), webhook.id)).toHaveLength(1);
      expect(receiver.received).toHaveLength(1);
    });
  });

  describe('Retry-After and disabling after a failure streak', () => {
    const testApp = useTestApp({
      env: { ...FAST, WEBHOOKS_RETRY_SCHEDULE: '1s,5s,1s,1s,1s,1s,1s,1s,1s,1s', WEBHOOKS_DISABLE_AFTER: '3s' },
    });
    const http = () => testApp.http;
    let receiver: WebhookReceiver;
    beforeAll(async () => (receiver = await WebhookReceiver.start()));
    afterAll(() => receiver.stop());

    it('honours Retry-After on 429 beyond the scheduled delay, up to the next step of the schedule', async () => {
      // The first request of each event gets a 429 asking for 3 s.
      const seen = new Set<unknown>();
      receiver.respond = ({ headers }) =>
        seen.has(headers['webhook-id'])
          ? { status: 204 }
          : (seen.add(headers['webhook-id']), { status: 429, headers: { 'Retry-After': '3' } });
      const webhook = await registerWebhook(http(), receiver);
      const ticket = (await createTicket(http())).body;
      await waitUntil(() => receiver.accepted().length >= 1, 30_000, 'the retry');
      const [first, second] = receiver.received.filter((r) => r.headers['webhook-id'] === webhookIdOfTicket(receiver, ticket.id));
      // The schedule says 1 s; the receiver asked for 3 s, within the 5 s of the step after.
      expect([first.status, second.status]).toEqual([429, 204]);
      // Nothing else of the ticket reached the receiver: no event went twice at once. (Endpoints that earlier suites
      // left in the worker's database may be disabled meanwhile, whose WEBHOOK_DISABLED events come here too.)
      expect(receiver.received.filter((r) => r.json?.data?.ticketId === ticket.id).map((r) => r.status)).toEqual([429, 204]);
      expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(2_900);
      await http().delete(`/api/v2/webhooks/${webhook.id}`).expect(204);
    });

    it('disables an endpoint whose every attempt failed for WEBHOOKS_DISABLE_AFTER', async () => {
      receiver.received.length = 0;
      receiver.respond = () => ({ status: 503 });
      const webhook = await registerWebhook(http(), receiver);
      await createTicket(http());
      await waitUntil(async () => !(await http().get(`/api/v2/webhooks/${webhook.id}`)).body.enabled, 60_000, 'the endpoint disabled');
      const endpoint = (await http().get(`/api/v2/webhooks/${webhook.id}`)).body;
      expect(endpoint.disabledReason).toMatch(/^every delivery failed since \d{4}-/);
      expect(receiver.received.length).toBeGreaterThanOrEqual(2);
      await http().delete(`/api/v2/webhooks/${webhook.id}`).expect(204);
    });
  });

  describe('while RabbitMQ cannot be reached', () => {
    // Port 1: nothing listens there (a port found free could be taken by another suite's server meanwhile).
    const env: Record<string, string> = { ...FAST, RABBITMQ_URL: 'amqp://guest:guest@127.0.0.1:1' };
    const testApp = useTestApp({ env });
    let receiver: WebhookReceiver;
    beforeAll(async () => (receiver = await WebhookReceiver.start()));
    afterAll(() => receiver.stop());

    it('still delivers webhooks', async () => {
      expect((await testApp.http.get('/actuator/health')).body.components?.rabbit?.status ?? 'DOWN').toBe('DOWN');
      const webhook = await registerWebhook(testApp.http, receiver);
      const ticket = (await createTicket(testApp.http)).body;
      await waitUntil(() => receiver.accepted().length >= 1, 30_000, 'a delivery without RabbitMQ');
      expect(receiver.received[0].json.data.ticketId).toBe(ticket.id);
      expect(receiver.received[0].verified).toEqual([true]);
      await testApp.http.delete(`/api/v2/webhooks/${webhook.id}`).expect(204);
    });
  });
});
