import { readFileSync } from 'node:fs';
import { type AsyncAPIDocumentInterface, Parser } from '@asyncapi/parser';
import type { INestApplication } from '@nestjs/common';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../../src/config/app-config.js';
import { asyncApiFor } from '../../src/docs/asyncapi.setup.js';
import { TICKET_EVENT_ROUTING_KEYS } from '../../src/tickets/events/ticket-event.js';
import { SLA_EVENT_ROUTING_KEYS } from '../../src/sla/sla-event.js';
import { WEBHOOK_DISABLED_ROUTING_KEY } from '../../src/webhooks/webhook-endpoint-health.js';
import { EventConsumer } from '../support/event-consumer.js';
import { createTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';

const SOURCE = readFileSync(new URL('../../docs/asyncapi.yaml', import.meta.url), 'utf8');

type Json = Record<string, any>;

describe('AsyncAPI document (docs/asyncapi.yaml)', () => {
  let document: AsyncAPIDocumentInterface;

  beforeAll(async () => {
    const { document: parsed, diagnostics } = await new Parser().parse(SOURCE);
    // Severity 0 is an error, 1 a warning: the document must have neither.
    expect(diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`)).toEqual([]);
    document = parsed!;
  });

  const messageFor = (eventType: string) =>
    document
      .components()
      .messages()
      .all()
      .find((message) => message.name() === eventType)!;
  const channel = (id: string) => document.channels().get(id)!;

  it('is valid AsyncAPI 3 (checked by @asyncapi/parser) with one message per event type', () => {
    expect(document.version()).toMatch(/^3\./);
    expect(
      document
        .components()
        .messages()
        .all()
        .map((message) => message.name()),
    ).toEqual([
      'CREATED',
      'UPDATED',
      'DELETED',
      'COMMENT_ADDED',
      'SLA_WARNING',
      'SLA_BREACHED',
      'WEBHOOK_DISABLED',
      'ATTACHMENT_ADDED',
      'ATTACHMENT_DELETED',
      'LINKED',
      'UNLINKED',
      'MERGED',
      'UNMERGED',
      'IMPORTED',
    ]);
  });

  it('puts each later kind on a routing key of its own that the v1 binding does not match, and only CREATED and UPDATED on it', () => {
    const names = (id: string) =>
      channel(id)
        .messages()
        .all()
        .map((message) => message.name());
    expect(names('ticketEvents')).toEqual(['CREATED', 'UPDATED']);
    expect(names('ticketQueue')).toEqual(['CREATED', 'UPDATED']);
    expect([channel('ticketDeleted').address(), names('ticketDeleted')]).toEqual([TICKET_EVENT_ROUTING_KEYS.DELETED, ['DELETED']]);
    expect([channel('ticketCommentAdded').address(), names('ticketCommentAdded')]).toEqual([
      TICKET_EVENT_ROUTING_KEYS.COMMENT_ADDED,
      ['COMMENT_ADDED'],
    ]);
    expect([channel('ticketSlaWarning').address(), names('ticketSlaWarning')]).toEqual([
      SLA_EVENT_ROUTING_KEYS.SLA_WARNING,
      ['SLA_WARNING'],
    ]);
    expect([channel('ticketSlaBreached').address(), names('ticketSlaBreached')]).toEqual([
      SLA_EVENT_ROUTING_KEYS.SLA_BREACHED,
      ['SLA_BREACHED'],
    ]);
    expect([channel('ticketWebhookDisabled').address(), names('ticketWebhookDisabled')]).toEqual([
      WEBHOOK_DISABLED_ROUTING_KEY,
      ['WEBHOOK_DISABLED'],
    ]);
    expect([channel('ticketLinked').address(), names('ticketLinked')]).toEqual([TICKET_EVENT_ROUTING_KEYS.LINKED, ['LINKED']]);
    expect([channel('ticketUnlinked').address(), names('ticketUnlinked')]).toEqual([TICKET_EVENT_ROUTING_KEYS.UNLINKED, ['UNLINKED']]);
    expect([channel('ticketMerged').address(), names('ticketMerged')]).toEqual([TICKET_EVENT_ROUTING_KEYS.MERGED, ['MERGED']]);
    expect([channel('ticketUnmerged').address(), names('ticketUnmerged')]).toEqual([TICKET_EVENT_ROUTING_KEYS.UNMERGED, ['UNMERGED']]);
    expect([channel('ticketImported').address(), names('ticketImported')]).toEqual([TICKET_EVENT_ROUTING_KEYS.IMPORTED, ['IMPORTED']]);
    for (const id of [
      'ticketDeleted',
      'ticketCommentAdded',
      'ticketSlaWarning',
      'ticketSlaBreached',
      'ticketWebhookDisabled',
      'ticketLinked',
      'ticketUnlinked',
      'ticketMerged',
      'ticketUnmerged',
      'ticketImported',
    ]) {
      expect(channel(id).bindings().get('amqp')!.value()).toMatchObject({
        is: 'routingKey',
        exchange: { name: parseConfig({}).rabbitmq.exchange, type: 'topic' },
      });
    }
  });

  it('names the topology the service declares by default: exchange, type, routing key and queue', () => {
    const defaults = parseConfig({}).rabbitmq;
    const published = channel('ticketEvents');
    expect(published.address()).toBe(defaults.routingKey);
    expect(published.bindings().get('amqp')!.value()).toMatchObject({
      is: 'routingKey',
      exchange: { name: defaults.exchange, type: defaults.exchangeType, durable: true, autoDelete: false },
    });
    const consumed = channel('ticketQueue');
    expect(consumed.address()).toBe(defaults.queue);
    expect(consumed.bindings().get('amqp')!.value()).toMatchObject({ is: 'queue', queue: { name: defaults.queue, durable: true } });
    const send = document.operations().get('publishTicketEvent')!;
    expect(send.action()).toBe('send');
    expect(send.bindings().get('amqp')!.value()).toMatchObject({ deliveryMode: 2, timestamp: true });
  });

  it('gives examples that are valid against their message payloads', () => {
    for (const message of document.components().messages().all()) {
      const validate = payloadValidator(message.payload()!.json());
      for (const example of message.examples().all()) expect(validate(example.payload())).toEqual([]);
    }
  });

  describe('against the running service', () => {
    let app: INestApplication;
    let consumer: EventConsumer;

    beforeAll(async () => {
      app = await createTestApp();
      // Every kind: a queue bound to ticket.#, as a consumer of the later kinds would bind one.
      consumer = await EventConsumer.bound('ticket.#');
    });

    afterAll(async () => {
      await consumer.stop();
      await app.close();
    });

    it('describes the events really published, of every kind: payload schema, routing key and AMQP properties', async () => {
      const http = request(app.getHttpServer());
      const { id } = (
        await http
          .post('/api/tickets')
          .send(buildTicketRequest({ assignedTo: undefined }))
          .expect(201)
      ).body;
      await http
        .put(`/api/tickets/${id}`)
        .send(buildTicketRequest({ status: 'CLOSED' }))
        .expect(200);
      await http.post(`/api/tickets/${id}/comments`).send({ body: 'Closed after the call', author: null }).expect(201);
      await http.delete(`/api/tickets/${id}`).expect(204);
      await consumer.waitFor(() => consumer.forTicket(id).length === 4);
      expect(consumer.typesFor(id)).toEqual(['CREATED', 'UPDATED', 'COMMENT_ADDED', 'DELETED']);
      const line = { ...buildTicketRequest(), externalId: `asyncapi-${id}`, tags: ['imported'], createdAt: '2024-01-02T03:04:05Z' };
      const job = (await http.post('/api/v2/imports').set('Content-Type', 'application/x-ndjson').send(JSON.stringify(line)).expect(202))
        .body;
      await consumer.waitFor(() => consumer.bodies().some((body) => body.import?.externalId === line.externalId), 30_000);
      const imported = consumer.messages.filter(
        (message) => JSON.parse(message.content.toString('utf8')).import?.externalId === line.externalId,
      );
      expect([imported.length, job.kind]).toEqual([1, 'import']);

      for (const delivery of [...consumer.forTicket(id), ...imported]) {
        const body = JSON.parse(delivery.content.toString('utf8'));
        const message = messageFor(body.eventType);
        expect(payloadValidator(message.payload()!.json())(body)).toEqual([]);
        const channels = document
          .channels()
          .all()
          .filter(
            (c) =>
              c.bindings().get('amqp')?.value().is === 'routingKey' &&
              c
                .messages()
                .all()
                .some((m) => m.name() === body.eventType),
          );
        expect(channels.map((c) => c.address())).toEqual([delivery.fields.routingKey]);

        const documented = message.json()['x-amqp-properties'];
        const { properties } = delivery;
        expect(properties.contentType).toBe(message.contentType());
        expect(properties.contentType).toBe(documented.content_type);
        expect(properties.contentEncoding).toBe(message.bindings().get('amqp')!.value().contentEncoding);
        expect(properties.deliveryMode).toBe(documented.delivery_mode);
        expect(properties.type).toBe(message.bindings().get('amqp')!.value().messageType);
        expect(properties.messageId).toBe(body.eventId);
        expect(properties.timestamp).toBe(Math.floor(Date.parse(body.occurredAt) / 1000));
        expect(properties.headers ?? {}).toEqual({});
      }
    });

    it('serves the document at /asyncapi.yaml and as JSON at /asyncapi.json, naming the exchange and queue in force', async () => {
      const http = request(app.getHttpServer());
      const yaml = await http.get('/asyncapi.yaml').buffer(true).expect(200);
      expect(yaml.headers['content-type']).toBe('application/yaml; charset=utf-8');
      // The run has an exchange and a queue of its own (test/support/global-setup.ts), not the defaults the file names.
      const { exchange, exchangeType, queue, routingKey } = parseConfig(process.env).rabbitmq;
      expect([exchange, queue]).not.toEqual([parseConfig({}).rabbitmq.exchange, parseConfig({}).rabbitmq.queue]);
      expect(yaml.text).toBe(asyncApiFor(SOURCE, { exchange, exchangeType, queue, routingKey }).yaml);
      const { document: served, diagnostics: yamlDiagnostics } = await new Parser().parse(yaml.text);
      expect(yamlDiagnostics.filter((d) => d.severity <= 1)).toEqual([]);
      for (const channel of served!.channels().all()) {
        const amqp = channel.bindings().get('amqp')!.value();
        if (amqp.is === 'routingKey') expect([channel.id(), amqp.exchange.name]).toEqual([channel.id(), exchange]);
        else expect([channel.id(), channel.address(), amqp.queue.name]).toEqual([channel.id(), queue, queue]);
      }
      expect(served!.channels().get('ticketEvents')!.address()).toBe(routingKey);
      expect(served!.channels().get('ticketEvents')!.json().description).toContain(`Exchange \`${exchange}\``);
      for (const name of [parseConfig({}).rabbitmq.exchange, parseConfig({}).rabbitmq.queue])
        expect(yaml.text).not.toContain(`\`${name}\``);
      const json = await http.get('/asyncapi.json').expect(200);
      expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(json.body).toEqual(parseYaml(yaml.text));
      // The JSON form is the same document for an AsyncAPI tool too.
      const { document: fromJson, diagnostics } = await new Parser().parse(json.text);
      expect(diagnostics.filter((d) => d.severity <= 1)).toEqual([]);
      expect(
        fromJson!
          .components()
          .messages()
          .all()
          .map((message) => message.name()),
      ).toEqual([
        'CREATED',
        'UPDATED',
        'DELETED',
        'COMMENT_ADDED',
        'SLA_WARNING',
        'SLA_BREACHED',
        'WEBHOOK_DISABLED',
        'ATTACHMENT_ADDED',
        'ATTACHMENT_DELETED',
        'LINKED',
        'UNLINKED',
        'MERGED',
        'UNMERGED',
        'IMPORTED',
      ]);
    });

    it('is linked from the OpenAPI description, by links that lead to it from Swagger UI and from the document', async () => {
      const http = request(app.getHttpServer());
      const { description } = (await http.get('/v3/api-docs').expect(200)).body.info as { description: string };
      const links = [...description.matchAll(/\]\(([^)]+)\)/g)].map(([, href]) => href);
      for (const page of ['/swagger-ui/', '/v3/api-docs']) {
        const targets = links.map((href) => new URL(href, `http://host${page}`).pathname);
        expect(targets).toEqual(['/asyncapi.yaml', '/asyncapi.json']);
      }
      for (const target of ['/asyncapi.yaml', '/asyncapi.json']) await http.get(target).expect(200);
    });

    it("describes the event's ticket exactly as the OpenAPI document describes the HTTP ticket", async () => {
      const openapi = (await request(app.getHttpServer()).get('/v3/api-docs').expect(200)).body;
      const http: Json = openapi.components.schemas.TicketResponse;
      const event: Json = document.components().schemas().get('Ticket')!.json();
      // And its tags, as a v2 ticket shows them (never on ticket.routing.key).
      expect(Object.keys(event.properties)).toEqual([...Object.keys(http.properties), 'tags', 'fields']);
      expect(event.properties.tags.type).toBe(openapi.components.schemas.TicketV2Response.properties.tags.type);
      expect(event.required).toEqual(http.required);
      expect(event.properties.status.enum).toEqual(openapi.components.schemas.TicketStatus.enum);
      expect(event.properties.priority.enum).toEqual(openapi.components.schemas.TicketPriority.enum);
      for (const [name, property] of Object.entries<Json>(http.properties)) {
        if (property.type) expect([name, event.properties[name].type]).toEqual([name, property.type]);
        if (property.format) expect([name, event.properties[name].format]).toEqual([name, property.format]);
      }
    });

    it("describes the event's comment exactly as the OpenAPI document describes the HTTP comment", async () => {
      const openapi = (await request(app.getHttpServer()).get('/v3/api-docs').expect(200)).body;
      const http: Json = openapi.components.schemas.CommentResponse;
      const event: Json = document.components().schemas().get('Comment')!.json();
      expect(Object.keys(event.properties)).toEqual(Object.keys(http.properties));
      expect(event.required).toEqual(http.required);
      expect(event.properties.visibility.enum).toEqual(openapi.components.schemas.CommentVisibility.enum);
      for (const [name, property] of Object.entries<Json>(http.properties)) {
        if (property.type) expect([name, event.properties[name].type]).toEqual([name, property.type]);
        if (property.format) expect([name, event.properties[name].format]).toEqual([name, property.format]);
      }
    });
  });
});

/** A JSON Schema validator for an AsyncAPI payload; returns the violations (empty when valid). */
function payloadValidator(schema: Json): (value: unknown) => string[] {
  // The parser annotates schemas with x-parser-* keys; they are not validation keywords.
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`));
}
