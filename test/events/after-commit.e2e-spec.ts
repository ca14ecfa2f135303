import { EventConsumer } from '../support/event-consumer.js';
import { uploadRaw } from '../support/attachment-uploads.js';
import { waitUntil } from '../support/waits.js';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { registerWebhook } from '../support/webhook-endpoints.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * What a write records goes out because its commit wakes the workers that send it (the after-commit hooks of
 * inTransaction), not because they poll: here their polls are minutes apart, longer than any wait below, so a write
 * path whose commit did not wake them fails its wait.
 */
describe('After a commit: the relay and the webhook dispatcher are woken by the commit itself', () => {
  const service = useTestApp({
    env: {
      OUTBOX_POLL_INTERVAL_MS: '150000',
      OUTBOX_LEASE_TTL_MS: '600000',
      WEBHOOKS_POLL_INTERVAL_MS: '60000',
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
    },
  });
  let consumer: EventConsumer;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    consumer = await EventConsumer.bound('#');
    receiver = await WebhookReceiver.start();
    await registerWebhook(service.http, receiver);
  });

  afterAll(async () => {
    await consumer.stop();
    await receiver.stop();
  });

  /** Waits for the ticket's next event, on RabbitMQ and at the webhook receiver alike. */
  async function expectSent(ticketId: number, count: number, type: string): Promise<void> {
    await consumer.waitFor(() => consumer.typesFor(ticketId).length === count);
    expect(consumer.typesFor(ticketId).at(-1)).toBe(type);
    const delivered = () => receiver.received.filter((webhook) => webhook.json.data?.ticketId === ticketId);
    await waitUntil(() => delivered().length === count, 10_000, `delivery ${count} of ticket ${ticketId}`);
  }

  it('publishes and delivers every kind of write: create, update, patch, comment, attachment added and deleted, delete', async () => {
    const http = service.http;
    const { id } = (await http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
    await expectSent(id, 1, 'CREATED');
    await http
      .put(`/api/tickets/${id}`)
      .send(buildTicketRequest({ status: 'IN_PROGRESS' }))
      .expect(200);
    await expectSent(id, 2, 'UPDATED');
    await http.patch(`/api/v2/tickets/${id}`).set('Content-Type', 'application/merge-patch+json').send({ priority: 'LOW' }).expect(200);
    await expectSent(id, 3, 'UPDATED');
    await http.post(`/api/tickets/${id}/comments`).send({ author: 'agent', body: 'on it' }).expect(201);
    await expectSent(id, 4, 'COMMENT_ADDED');
    const attachment = (await uploadRaw(http, `/api/tickets/${id}/attachments`, Buffer.from('log')).expect(201)).body;
    await expectSent(id, 5, 'ATTACHMENT_ADDED');
    await http.delete(`/api/tickets/${id}/attachments/${attachment.id}`).expect(204);
    await expectSent(id, 6, 'ATTACHMENT_DELETED');
    await http.delete(`/api/tickets/${id}`).expect(204);
    await expectSent(id, 7, 'DELETED');
  });
});
