import type request from 'supertest';
import type { WebhookReceiver } from './webhook-receiver.js';

type Json = Record<string, any>;
type Http = ReturnType<typeof request>;

/** Registers an endpoint for `receiver` (and gives the receiver its secret, so that it verifies what arrives). */
export async function registerWebhook(http: Http, receiver: WebhookReceiver, body: Json = {}): Promise<Json> {
  const response = await http
    .post('/api/v2/webhooks')
    .send({ url: receiver.url(), ...body })
    .expect(201);
  receiver.secrets = [response.body.secret];
  return response.body;
}

/** An endpoint's deliveries as the API lists them, newest first. */
export async function deliveriesOf(http: Http, webhookId: number): Promise<Json[]> {
  return (await http.get(`/api/v2/webhooks/${webhookId}/deliveries`).query({ limit: 1000 }).expect(200)).body.items;
}
