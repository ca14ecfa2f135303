import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '../support/waits.js';
import { useTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { WebhookSender } from '../../src/webhooks/webhook-sender.js';
import { WebhooksRepository } from '../../src/webhooks/webhooks.repository.js';
import { newSecret, webhookHeaders } from '../../src/webhooks/webhook-message.js';

type Json = Record<string, any>;

describe('Webhooks and SSRF', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => (receiver = await WebhookReceiver.start()));
  afterAll(() => receiver.stop());

  describe('on every attempt, by default', () => {
    const testApp = useTestApp({ env: { WEBHOOKS_POLL_INTERVAL_MS: '100', WEBHOOKS_RETRY_SCHEDULE: '1h' } });
    const ids: number[] = [];
    // Before the app closes (its afterAll, declared first, runs first): endpoints left enabled would be sent every
    // later suite's events in this database, and their hanging attempts would hold the dispatcher's slots there.
    afterEach(async () => {
      for (const id of ids.splice(0)) await testApp.http.delete(`/api/v2/webhooks/${id}`).expect(204);
    });

    it('refuses to send to endpoints that were registered while private networks were allowed', async () => {
      const port = receiver.port;
      const refused: Array<[string, RegExp]> = [
        [`https://localhost:${port}/hook`, /^refused: the URL resolves to (127\.0\.0\.1|::1), which is loopback$/],
        [`https://[::ffff:127.0.0.1]:${port}/hook`, /loopback \(IPv4 127\.0\.0\.1 inside an IPv6 address\)$/],
        [`https://10.0.0.1:${port}/hook`, /which is private \(RFC 1918\)$/],
        [`https://169.254.169.254:${port}/latest/meta-data/`, /which is the cloud metadata service \(AWS, Google Cloud, Azure, .*\)$/],
        [`https://168.63.129.16:${port}/machine`, /which is Azure's platform endpoint \(WireServer\)$/],
        [`https://100.100.100.200:${port}/latest/meta-data/`, /which is the cloud metadata service \(Alibaba Cloud\)$/],
        [`https://[fd00:ec2::254]:${port}/latest/meta-data/`, /which is the cloud metadata service \(AWS, IPv6\)$/],
        [`https://metadata.google.internal:${port}/computeMetadata/v1/`, /which is the name of a cloud metadata service$/],
        [`https://93.184.216.34:0/hook`, /^refused: the URL has port 0, outside 1-65535$/],
        [`http://127.0.0.1:${port}/hook`, /^refused: the URL must use https:\/\/$/],
        [`https://user:secret@127.0.0.1:${port}/hook`, /must not carry credentials/],
      ];
      // As a deployment that allowed private networks once would have stored them: through the repository, which
      // stores what it is given (the checks are the service's) and places the cursor as every new endpoint's is placed.
      const webhooks = testApp.app.get(WebhooksRepository);
      for (const [url] of refused) {
        ids.push(await webhooks.insert({ url, description: null, eventTypes: [], enabled: true }, newSecret(), new Date()));
      }
      await createTicket(testApp.http);
      const attempted = async (id: number) =>
        (await testApp.http.get(`/api/v2/webhooks/${id}/deliveries`).expect(200)).body.items[0] as Json;
      await waitUntil(
        async () => (await Promise.all(ids.map(attempted))).every((d) => d?.attempts >= 1),
        30_000,
        'an attempt per endpoint',
      );
      for (const [index, [, reason]] of refused.entries()) {
        const delivery = await attempted(ids[index]);
        expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
        expect(delivery.lastError).toMatch(reason);
      }
      expect(receiver.received).toHaveLength(0);
    });
  });

  describe('the connection', () => {
    const body = '{"type":"ticket.created","timestamp":"2026-11-22T10:00:00.000Z","data":{}}';
    const headers = () => webhookHeaders([newSecret()], 'e1', new Date(), body);

    it('goes to the address that was checked, while Host names the URL host (no second DNS answer is used)', async () => {
      const asked: string[] = [];
      const sender = new WebhookSender(5_000, true, async (host) => {
        asked.push(host);
        return [{ address: '127.0.0.1', family: 4 }];
      });
      receiver.received.length = 0;
      // rebinding.invalid resolves nowhere: only the checked answer can have reached the receiver.
      const result = await sender.send(`http://rebinding.invalid:${receiver.port}/hook`, headers(), body);
      sender.close();
      expect(result).toMatchObject({ statusCode: 204, error: null });
      expect(asked).toEqual(['rebinding.invalid']);
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0].headers.host).toBe(`rebinding.invalid:${receiver.port}`);
    });

    it('is refused when the host now resolves to a private address: the check runs before every attempt', async () => {
      const sender = new WebhookSender(5_000, false, async () => [{ address: '127.0.0.1', family: 4 }]);
      receiver.received.length = 0;
      const result = await sender.send(`https://rebinding.invalid:${receiver.port}/hook`, headers(), body);
      sender.close();
      expect(result).toMatchObject({ statusCode: null, error: 'refused: the URL resolves to 127.0.0.1, which is loopback' });
      expect(receiver.received).toHaveLength(0);
    });

    it('refuses a URL with whitespace or control characters as an older version stored it, rather than call another URL', async () => {
      const sender = new WebhookSender(5_000, true);
      receiver.received.length = 0;
      for (const url of [`http://127.0.0.1:${receiver.port}/a\r\nX-Injected: 1`, `http://127.0.0.1:${receiver.port}/a\tb`]) {
        const result = await sender.send(url, headers(), body);
        expect(result).toMatchObject({
          statusCode: null,
          error: expect.stringMatching(/^refused: the URL must not contain whitespace or control/),
        });
      }
      sender.close();
      expect(receiver.received).toHaveLength(0);
    });

    it('connects to the port the URL names, and refuses port 0 rather than go to the default port', async () => {
      const asked: string[] = [];
      const sender = new WebhookSender(5_000, true, async (host) => (asked.push(host), [{ address: '127.0.0.1', family: 4 }]));
      receiver.received.length = 0;
      expect(await sender.send(`http://receiver.invalid:${receiver.port}/hook`, headers(), body)).toMatchObject({ statusCode: 204 });
      expect(await sender.send('http://receiver.invalid:0/hook', headers(), body)).toMatchObject({
        statusCode: null,
        error: 'refused: the URL has port 0, outside 1-65535',
      });
      sender.close();
      expect(asked).toEqual(['receiver.invalid']);
      expect(receiver.received).toHaveLength(1);
    });

    it('gives up after the timeout, DNS included', async () => {
      const sender = new WebhookSender(300, true, () => new Promise(() => undefined));
      const result = await sender.send('http://slow.invalid/hook', headers(), body);
      sender.close();
      expect(result).toMatchObject({ statusCode: null, error: 'no response within 300 ms' });
    });

    it('ends the connection of a receiver that trickles its body past the timeout, or sends too much of it', async () => {
      for (const trickle of [true, false]) {
        let closed = false;
        const server = createServer((request, response) => {
          request.socket.once('close', () => (closed = true));
          response.writeHead(200);
          if (trickle) response.write('.');
          else response.write(Buffer.alloc(200_000));
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const sender = new WebhookSender(300, true);
        const result = await sender.send(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, headers(), body);
        expect(result).toMatchObject({ statusCode: 200, error: null });
        await waitUntil(() => closed, 30_000, 'the connection ended');
        sender.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});
