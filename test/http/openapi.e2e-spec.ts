import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { parse as parseYaml } from 'yaml';
import { OpenApiContract } from '../support/openapi-contract.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createTestApp, useTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';
import { buildTicketRequest, createTicket as createTicketThrough } from '../support/ticket-factory.js';

const COLLECTION = '/api/tickets';
const ONE = '/api/tickets/{id}';
const V2_COLLECTION = '/api/v2/tickets';
const V2_ONE = '/api/v2/tickets/{id}';

describe('OpenAPI document (/v3/api-docs)', () => {
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let contract: OpenApiContract;

  beforeAll(async () => {
    // Webhooks to 127.0.0.1 may be registered, and this app sends none.
    app = await createTestApp({
      env: { MANAGEMENT_HEALTH_PROBES_ENABLED: 'true', WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOKS_CONCURRENCY: '0' },
    });
    http = request(app.getHttpServer());
    const response = await http
      .get('/v3/api-docs')
      .expect(200)
      .expect('Content-Type', /application\/json/);
    contract = await OpenApiContract.from(response.body);
  });

  afterAll(async () => {
    await app.close();
  });

  async function createTicket(): Promise<number> {
    return (await createTicketThrough(http, {}, COLLECTION)).body.id;
  }

  describe('the document', () => {
    it('is a valid OpenAPI 3.1 document (checked by @apidevtools/swagger-parser, every $ref resolved)', () => {
      expect(contract.document.openapi).toBe('3.1.0');
      expect(contract.document.info).toMatchObject({ title: 'Ticket service', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    });

    it('is served as YAML too, with the same content', async () => {
      const [json, yaml] = await Promise.all([http.get('/v3/api-docs'), http.get('/v3/api-docs.yaml').expect(200)]);
      expect(parseYaml(yaml.text)).toEqual(json.body);
    });

    it('describes every endpoint the application routes', () => {
      const routed = new Set<string>();
      const router = (app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string; methods: object } }> } })
        .router;
      for (const { route } of router.stack) {
        if (!route || !/^\/(api|actuator)\b/.test(route.path)) continue;
        for (const method of Object.keys(route.methods)) routed.add(`${method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
      }
      const documented = Object.entries(contract.document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method} ${path}`),
      );
      expect(routed.size).toBeGreaterThan(0);
      expect(documented.sort()).toEqual([...routed].sort());
    });

    it('declares the error responses of each operation: the Spring error body (but a failed health check), problem+json under /api/v2', () => {
      const statuses = (method: string, path: string) => Object.keys(contract.operation(method, path).responses).sort();
      for (const [collection, one] of [
        [COLLECTION, ONE],
        [V2_COLLECTION, V2_ONE],
      ]) {
        expect(statuses('post', collection)).toEqual(['201', '400', '409', '413', '415', '422', '500', '503']);
        expect(statuses('get', collection)).toEqual(['200', '400', '500', '503']);
        expect(statuses('get', one)).toEqual(['200', '304', '400', '404', '500', '503']);
        expect(statuses('put', one)).toEqual(['200', '400', '404', '409', '412', '413', '415', '500', '503']);
        expect(statuses('patch', one)).toEqual(['200', '400', '404', '409', '412', '413', '415', '422', '500', '503']);
        expect(statuses('get', `${one}/transitions`)).toEqual(['200', '400', '404', '500', '503']);
        expect(statuses('delete', one)).toEqual(['204', '400', '404', '412', '500', '503']);
        expect(statuses('get', `${one}/history`)).toEqual(['200', '400', '404', '500', '503']);
        expect(statuses('post', `${one}/comments`)).toEqual(['201', '400', '404', '409', '413', '415', '422', '500', '503']);
        expect(statuses('get', `${one}/comments`)).toEqual(['200', '400', '404', '500', '503']);
        expect(statuses('get', `${one}/comments/{commentId}`)).toEqual(['200', '400', '404', '500', '503']);
      }
      expect(statuses('get', '/actuator/health')).toEqual(['200', '404', '503']);
      expect(statuses('get', '/actuator/health/{name}')).toEqual(['200', '404', '503']);
      expect(statuses('get', '/actuator/info')).toEqual(['200', '404']);
      const errorSchema = contract.document.components.schemas.SpringErrorResponse;
      const problemSchema = contract.document.components.schemas.ProblemDetailResponse;
      // A problem type of its own has a schema of its own, which extends ProblemDetailResponse's.
      const transitionSchema = contract.document.components.schemas.InvalidTransitionProblemResponse;
      expect(Object.keys(transitionSchema.properties as object)).toEqual(
        expect.arrayContaining([...Object.keys(problemSchema.properties as object), 'from', 'to', 'allowed']),
      );
      for (const [path, item] of Object.entries(contract.document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          for (const [status, response] of Object.entries(operation.responses)) {
            const healthBody = path.startsWith('/actuator/health') && status === '503';
            if (Number(status) < 400 || healthBody) continue;
            // PATCH's 409 is a workflow's or an Idempotency-Key's in use; PUT's only a workflow's.
            const conflict = method === 'patch' ? { oneOf: [transitionSchema, problemSchema] } : transitionSchema;
            const resync = contract.document.components.schemas.ResyncRequiredProblemResponse;
            const own = path === '/api/v2/changes' && status === '410' ? resync : problemSchema;
            const schema = path === V2_ONE && status === '409' ? conflict : own;
            if (path.startsWith('/api/v2/'))
              expect(response.content).toEqual({ 'application/problem+json': expect.objectContaining({ schema }) });
            else expect(response.content?.['application/json']?.schema).toEqual(errorSchema);
          }
        }
      }
    });

    it('states the request body: required fields, length limits, enums and the e-mail format', () => {
      const body = contract.operation('post', COLLECTION).requestBody!;
      expect(body.required).toBe(true);
      const schema = body.content['application/json'].schema as { required: string[]; properties: Record<string, any> };
      expect(schema.required).toEqual(['title', 'description', 'status', 'priority', 'requesterEmail']);
      const { title, description, status, priority, requesterEmail, assignedTo } = schema.properties;
      expect([title.maxLength, description.maxLength, requesterEmail.maxLength, assignedTo.maxLength]).toEqual([255, 2000, 255, 255]);
      expect(status.allOf[0].enum).toEqual(['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED']);
      expect(priority.allOf[0].enum).toEqual(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']);
      expect(requesterEmail.format).toBe('email');
      expect(assignedTo.type).toEqual(['string', 'null']);
    });

    it('states the optional conditional headers: If-None-Match on GET, If-Match on PUT and DELETE', () => {
      const headers = (method: string) =>
        contract
          .operation(method, ONE)
          .parameters!.filter((p) => p.in === 'header')
          .map(({ name, required }) => [name, required]);
      expect(headers('get')).toEqual([['if-none-match', false]]);
      expect(headers('put')).toEqual([['if-match', false]]);
      expect(headers('delete')).toEqual([['if-match', false]]);
    });

    it('states the parameters: an int64 id of at least 1, and the optional query parameters of the lists', () => {
      const [id] = contract.operation('get', ONE).parameters!;
      expect(id).toMatchObject({ name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int64', minimum: 1 } });
      const listParameters = [
        'anyTags',
        'assignedTo',
        'createdAfter',
        'createdBefore',
        'cursor',
        'limit',
        'linkType',
        'linkedTo',
        'priority',
        'q',
        'requesterEmail',
        'slaBreached',
        'slaDueBefore',
        'sort',
        'status',
        'tags',
        'total',
        'updatedAfter',
        'updatedBefore',
      ];
      for (const collection of [COLLECTION, V2_COLLECTION]) {
        const parameters = contract.operation('get', collection).parameters!;
        expect(parameters.map(({ name }) => name).sort()).toEqual(listParameters);
        expect(parameters.every((parameter) => parameter.in === 'query' && parameter.required === false)).toBe(true);
      }
      const statuses = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'];
      const v1 = Object.fromEntries(contract.operation('get', COLLECTION).parameters!.map((parameter) => [parameter.name, parameter]));
      expect(v1.status.schema.enum).toEqual(statuses);
      expect(v1.limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
      expect(v1.q.schema).toMatchObject({ type: 'string', maxLength: 200 });
      const v2 = Object.fromEntries(contract.operation('get', V2_COLLECTION).parameters!.map((parameter) => [parameter.name, parameter]));
      expect(v2.status).toMatchObject({ style: 'form', explode: true, schema: { type: 'array', items: { enum: statuses } } });
      expect(v2.limit.schema).toMatchObject({ default: 50, maximum: 1000 });
    });

    it('serves each version as a group of its own, and Swagger UI offers both', async () => {
      const v1 = (await http.get('/v3/api-docs/v1').expect(200)).body;
      const v2 = (await http.get('/v3/api-docs/v2').expect(200)).body;
      expect(Object.keys(v1.paths)).toContain(COLLECTION);
      expect(Object.keys(v1.paths).some((path) => path.startsWith('/api/v2'))).toBe(false);
      expect(Object.keys(v2.paths).sort()).toEqual([
        '/api/v2/changes',
        '/api/v2/fields',
        '/api/v2/fields/{key}',
        '/api/v2/imports',
        '/api/v2/inbound-email',
        '/api/v2/jobs/{jobId}',
        '/api/v2/jobs/{jobId}/cancel',
        '/api/v2/jobs/{jobId}/results',
        '/api/v2/organizations',
        '/api/v2/organizations/{id}',
        '/api/v2/tags',
        V2_COLLECTION,
        `${V2_COLLECTION}/bulk`,
        `${V2_COLLECTION}/export`,
        `${V2_COLLECTION}/stats`,
        `${V2_COLLECTION}/stats/sla`,
        V2_ONE,
        `${V2_ONE}/attachments`,
        `${V2_ONE}/attachments/{attachmentId}`,
        `${V2_ONE}/attachments/{attachmentId}/content`,
        `${V2_ONE}/comments`,
        `${V2_ONE}/comments/{commentId}`,
        `${V2_ONE}/history`,
        `${V2_ONE}/links`,
        `${V2_ONE}/links/{linkId}`,
        `${V2_ONE}/merge`,
        `${V2_ONE}/notifications`,
        `${V2_ONE}/resolve-linked`,
        `${V2_ONE}/sla`,
        `${V2_ONE}/tags`,
        `${V2_ONE}/transitions`,
        `${V2_ONE}/unmerge`,
        '/api/v2/webhooks',
        '/api/v2/webhooks/{id}',
        '/api/v2/webhooks/{id}/deliveries',
        '/api/v2/webhooks/{id}/deliveries/{deliveryId}/redeliver',
        '/api/v2/webhooks/{id}/replay',
        '/api/v2/webhooks/{id}/rotate-secret',
        '/api/v2/webhooks/{id}/test',
      ]);
      expect(Object.keys(v2.paths).every((path) => path.startsWith('/api/v2/'))).toBe(true);
      await OpenApiContract.from(v2);
      await http.get('/v3/api-docs/v3').expect(404);
      const init = (await http.get('/swagger-ui/swagger-ui-init.js').expect(200)).text;
      expect(init).toContain('"url": "../v3/api-docs/v1"');
      expect(init).toContain('"url": "../v3/api-docs/v2"');
    });

    it('gives examples that are valid against their own schemas', () => {
      let checked = 0;
      for (const [path, item] of Object.entries(contract.document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          const contents = [operation.requestBody?.content, ...Object.values(operation.responses).map((r) => r.content)];
          for (const media of contents.flatMap((content) => Object.values(content ?? {}))) {
            for (const [name, example] of Object.entries(media.examples ?? {})) {
              contract.expectValid(media.schema!, example.value, `example "${name}" of ${method} ${path}`);
              checked++;
            }
          }
        }
      }
      expect(checked).toBeGreaterThanOrEqual(10);
      const requestSchema = contract.document.components.schemas.TicketRequest as { properties: Record<string, { example: unknown }> };
      const exampleBody = Object.fromEntries(Object.entries(requestSchema.properties).map(([key, value]) => [key, value.example]));
      contract.expectValid(requestSchema, exampleBody, 'the TicketRequest example');
    });

    it('answers the example request body that Swagger UI pre-fills with 201', async () => {
      const requestSchema = contract.document.components.schemas.TicketRequest as { properties: Record<string, { example: unknown }> };
      const exampleBody = Object.fromEntries(Object.entries(requestSchema.properties).map(([key, value]) => [key, value.example]));
      contract.expectResponse('post', COLLECTION, await http.post(COLLECTION).send(exampleBody).expect(201));
    });
  });

  describe('real responses match their declared schemas', () => {
    it('POST: 201, 400 (validation, malformed JSON, wrong enum), 413 and 415', async () => {
      contract.expectResponse('post', COLLECTION, await http.post(COLLECTION).send(buildTicketRequest()).expect(201));
      contract.expectResponse(
        'post',
        COLLECTION,
        await http
          .post(COLLECTION)
          .send(buildTicketRequest({ title: ' ', requesterEmail: 'x' }))
          .expect(400),
      );
      contract.expectResponse(
        'post',
        COLLECTION,
        await http
          .post(COLLECTION)
          .send(buildTicketRequest({ status: 'open', priority: 7 }))
          .expect(400),
      );
      contract.expectResponse(
        'post',
        COLLECTION,
        await http.post(COLLECTION).set('Content-Type', 'application/json').send('{"title":').expect(400),
      );
      contract.expectResponse(
        'post',
        COLLECTION,
        await http
          .post(COLLECTION)
          .send(buildTicketRequest({ description: 'x'.repeat(1024 * 1024) }))
          .expect(413),
      );
      contract.expectResponse('post', COLLECTION, await http.post(COLLECTION).set('Content-Type', 'text/plain').send('hello').expect(415));
    });

    it('Idempotency-Key (v1 and v2 creates, PATCH, comments): the header documented; replay 200/201, 400, 409 and 422 as declared', async () => {
      for (const [collection, one] of [
        [COLLECTION, ONE],
        [V2_COLLECTION, V2_ONE],
      ]) {
        for (const [operation, success] of [
          [contract.operation('post', collection), '201'],
          [contract.operation('post', `${one}/comments`), '201'],
          [contract.operation('patch', one), '200'],
        ] as const) {
          expect(operation.parameters!.find((p) => p.name === 'Idempotency-Key')).toMatchObject({ in: 'header', required: false });
          expect(Object.keys((operation.responses[success] as { headers: object }).headers)).toContain('Idempotent-Replayed');
        }
        expect(contract.operation('put', one).parameters!.find((p) => p.name === 'Idempotency-Key')).toBeUndefined();
        const key = `openapi-${Date.now()}-${collection.length}`;
        const body = buildTicketRequest();
        const created = await http.post(collection).set('Idempotency-Key', key).send(body).expect(201);
        const replay = await http.post(collection).set('Idempotency-Key', key).send(body).expect(201);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        contract.expectResponse('post', collection, replay);
        contract.expectResponse(
          'post',
          collection,
          await http.post(collection).set('Idempotency-Key', key).send(buildTicketRequest()).expect(422),
        );
        contract.expectResponse('post', collection, await http.post(collection).set('Idempotency-Key', '').send(body).expect(400));
        const comments = `${collection}/${created.body.id}/comments`;
        // The key already belongs to the ticket's create: another path is another request.
        contract.expectResponse(
          'post',
          `${one}/comments`,
          await http.post(comments).set('Idempotency-Key', key).send({ body: 'x' }).expect(422),
        );
        const commentKey = `${key}-comment`;
        await http.post(comments).set('Idempotency-Key', commentKey).send({ body: 'x' }).expect(201);
        contract.expectResponse(
          'post',
          `${one}/comments`,
          await http.post(comments).set('Idempotency-Key', commentKey).send({ body: 'x' }).expect(201),
        );
        const patchKey = `${key}-patch`;
        const patch = () => http.patch(`${collection}/${created.body.id}`).set('Idempotency-Key', patchKey);
        await patch().send({ priority: 'HIGH' }).expect(200);
        const patchReplay = await patch().send({ priority: 'HIGH' }).expect(200);
        expect(patchReplay.headers['idempotent-replayed']).toBe('true');
        contract.expectResponse('patch', one, patchReplay);
        contract.expectResponse('patch', one, await patch().send({ priority: 'LOW' }).expect(422));
      }
    });

    it('GET collection: 200 with and without filters, paged with Link and X-Total-Count, 400 for bad values', async () => {
      await createTicket();
      await createTicket();
      contract.expectResponse('get', COLLECTION, await http.get(COLLECTION).expect(200));
      contract.expectResponse('get', COLLECTION, await http.get(`${COLLECTION}?status=OPEN&requesterEmail=a@b.c`).expect(200));
      const paged = await http.get(`${COLLECTION}?sort=-updatedAt&limit=1`).expect(200);
      expect(paged.headers.link).toBeDefined();
      contract.expectResponse('get', COLLECTION, paged);
      contract.expectResponse('get', COLLECTION, await http.get(`${COLLECTION}?status=open`).expect(400));
      contract.expectResponse(
        'get',
        COLLECTION,
        await http.get(`${COLLECTION}?priority=x&limit=0&sort=title&q=${'x'.repeat(201)}`).expect(400),
      );
    });

    it('v2 GET collection: the page envelope, and problem+json for bad and unknown parameters', async () => {
      await createTicket();
      await createTicket();
      const paged = await http.get(`${V2_COLLECTION}?limit=1`).expect(200);
      expect(paged.body.nextCursor).toEqual(expect.any(String));
      contract.expectResponse('get', V2_COLLECTION, paged);
      contract.expectResponse('get', V2_COLLECTION, await http.get(`${V2_COLLECTION}?limit=1000&total=false`).expect(200));
      for (const query of ['status=open', 'page=2', 'limit=1&limit=2', `limit=1&cursor=${paged.body.nextCursor}&sort=-id`]) {
        contract.expectResponse(
          'get',
          V2_COLLECTION,
          await http
            .get(`${V2_COLLECTION}?${query}`)
            .expect(400)
            .expect('Content-Type', /^application\/problem\+json/),
        );
      }
    });

    it('v2 POST, GET, PUT and DELETE: the ticket, and problem+json for 400, 404, 412, 413 and 415', async () => {
      const created = await http.post(V2_COLLECTION).send(buildTicketRequest()).expect(201);
      contract.expectResponse('post', V2_COLLECTION, created);
      const one = `${V2_COLLECTION}/${created.body.id}`;
      contract.expectResponse(
        'post',
        V2_COLLECTION,
        await http
          .post(V2_COLLECTION)
          .send(buildTicketRequest({ title: ' ', status: 'open' }))
          .expect(400),
      );
      contract.expectResponse(
        'post',
        V2_COLLECTION,
        await http.post(V2_COLLECTION).set('Content-Type', 'application/json').send('{"title":').expect(400),
      );
      contract.expectResponse(
        'post',
        V2_COLLECTION,
        await http
          .post(V2_COLLECTION)
          .send(buildTicketRequest({ description: 'x'.repeat(1024 * 1024) }))
          .expect(413),
      );
      contract.expectResponse(
        'post',
        V2_COLLECTION,
        await http.post(V2_COLLECTION).set('Content-Type', 'text/plain').send('hello').expect(415),
      );
      contract.expectResponse('get', V2_ONE, await http.get(one).expect(200));
      contract.expectResponse('get', V2_ONE, await http.get(`${V2_COLLECTION}/abc`).expect(400));
      contract.expectResponse('get', V2_ONE, await http.get(`${V2_COLLECTION}/999999999`).expect(404));
      contract.expectResponse(
        'put',
        V2_ONE,
        await http
          .put(one)
          .send(buildTicketRequest({ status: 'CLOSED' }))
          .expect(200),
      );
      contract.expectResponse('put', V2_ONE, await http.put(one).set('If-Match', '"0-0"').send(buildTicketRequest()).expect(412));
      contract.expectResponse('delete', V2_ONE, await http.delete(one).expect(204));
      contract.expectResponse('delete', V2_ONE, await http.delete(one).expect(404));
    });

    it('GET one: 200 with its ETag, 304 for a current If-None-Match, 400 for a malformed id, 404 for an unknown one', async () => {
      const id = await createTicket();
      const found = await http.get(`${COLLECTION}/${id}`).expect(200);
      contract.expectResponse('get', ONE, found);
      contract.expectResponse('get', ONE, await http.get(`${COLLECTION}/${id}`).set('If-None-Match', found.headers.etag).expect(304));
      contract.expectResponse('get', ONE, await http.get(`${COLLECTION}/abc`).expect(400));
      contract.expectResponse('get', ONE, await http.get(`${COLLECTION}/999999999`).expect(404));
    });

    it('PUT: 200, 400, 404, 412, 413 and 415', async () => {
      const id = await createTicket();
      const one = `${COLLECTION}/${id}`;
      contract.expectResponse(
        'put',
        ONE,
        await http
          .put(one)
          .send(buildTicketRequest({ status: 'RESOLVED', assignedTo: undefined }))
          .expect(200),
      );
      contract.expectResponse(
        'put',
        ONE,
        await http
          .put(one)
          .send(buildTicketRequest({ description: undefined }))
          .expect(400),
      );
      contract.expectResponse('put', ONE, await http.put(`${COLLECTION}/0`).send(buildTicketRequest()).expect(400));
      contract.expectResponse('put', ONE, await http.put(`${COLLECTION}/999999999`).send(buildTicketRequest()).expect(404));
      contract.expectResponse(
        'put',
        ONE,
        await http
          .put(one)
          .send(buildTicketRequest({ title: 'x'.repeat(1024 * 1024) }))
          .expect(413),
      );
      contract.expectResponse('put', ONE, await http.put(one).set('Content-Type', 'text/plain').send('x').expect(415));
      contract.expectResponse('put', ONE, await http.put(one).set('If-Match', '"0-0"').send(buildTicketRequest()).expect(412));
    });

    it('PATCH (v1 and v2): 200 for merge-patch+json and JSON, 400, 404, 412, 413 and 415', async () => {
      for (const [collection, path] of [
        [COLLECTION, ONE],
        [V2_COLLECTION, V2_ONE],
      ]) {
        const one = `${collection}/${(await http.post(collection).send(buildTicketRequest()).expect(201)).body.id}`;
        const merge = (target: string) => http.patch(target).set('Content-Type', 'application/merge-patch+json');
        contract.expectResponse('patch', path, await merge(one).send({ status: 'RESOLVED', assignedTo: null }).expect(200));
        contract.expectResponse('patch', path, await http.patch(one).send({ priority: 'LOW' }).expect(200));
        contract.expectResponse('patch', path, await merge(one).send({ title: null, status: 'open' }).expect(400));
        contract.expectResponse('patch', path, await merge(`${collection}/999999999`).send({}).expect(404));
        contract.expectResponse('patch', path, await merge(one).set('If-Match', '"0-0"').send({}).expect(412));
        contract.expectResponse(
          'patch',
          path,
          await merge(one)
            .send({ title: 'x'.repeat(1024 * 1024) })
            .expect(413),
        );
        contract.expectResponse('patch', path, await http.patch(one).set('Content-Type', 'text/plain').send('x').expect(415));
      }
    });

    it('GET history (v1 and v2): 200 whole and paged, 400 for bad paging, 404 for an unknown ticket', async () => {
      for (const [collection, path] of [
        [COLLECTION, `${ONE}/history`],
        [V2_COLLECTION, `${V2_ONE}/history`],
      ]) {
        const id = (await http.post(collection).send(buildTicketRequest()).expect(201)).body.id;
        await http
          .put(`${collection}/${id}`)
          .send(buildTicketRequest({ status: 'CLOSED' }))
          .expect(200);
        contract.expectResponse('get', path, await http.get(`${collection}/${id}/history`).expect(200));
        const paged = await http.get(`${collection}/${id}/history?limit=1`).expect(200);
        expect(paged.headers.link).toBeDefined();
        contract.expectResponse('get', path, paged);
        contract.expectResponse('get', path, await http.get(`${collection}/${id}/history?limit=0`).expect(400));
        contract.expectResponse('get', path, await http.get(`${collection}/abc/history`).expect(400));
        contract.expectResponse('get', path, await http.get(`${collection}/999999999/history`).expect(404));
      }
    });

    it('comments (v1 and v2): POST 201, 400, 404, 415; GET list whole and paged, 400, 404; GET one 200, 404', async () => {
      for (const [collection, one] of [
        [COLLECTION, ONE],
        [V2_COLLECTION, V2_ONE],
      ]) {
        const comments = `${one}/comments`;
        const id = (await http.post(collection).send(buildTicketRequest()).expect(201)).body.id;
        const path = `${collection}/${id}/comments`;
        const created = await http.post(path).send({ body: 'Rebooted', author: 'desk-2', visibility: 'INTERNAL' }).expect(201);
        contract.expectResponse('post', comments, created);
        await http.post(path).send({ body: 'Second' }).expect(201);
        contract.expectResponse('post', comments, await http.post(path).send({ body: ' ', visibility: 'x' }).expect(400));
        contract.expectResponse('post', comments, await http.post(`${collection}/999999999/comments`).send({ body: 'x' }).expect(404));
        contract.expectResponse('post', comments, await http.post(path).set('Content-Type', 'text/plain').send('x').expect(415));
        contract.expectResponse('get', comments, await http.get(path).expect(200));
        const paged = await http.get(`${path}?limit=1`).expect(200);
        expect(paged.headers.link).toBeDefined();
        contract.expectResponse('get', comments, paged);
        contract.expectResponse('get', comments, await http.get(`${path}?limit=x`).expect(400));
        contract.expectResponse('get', comments, await http.get(`${collection}/999999999/comments`).expect(404));
        contract.expectResponse('get', `${comments}/{commentId}`, await http.get(created.headers.location).expect(200));
        contract.expectResponse('get', `${comments}/{commentId}`, await http.get(`${path}/999999999`).expect(404));
      }
    });

    it('webhooks: every operation with its success, 400, 404 and 415 as declared', async () => {
      const W = '/api/v2/webhooks';
      const created = await http
        .post(W)
        .send({ url: 'http://127.0.0.1:9/hook', eventTypes: ['CREATED'] })
        .expect(201);
      contract.expectResponse('post', W, created);
      contract.expectResponse(
        'post',
        W,
        await http
          .post(W)
          .send({ url: 'ftp://x', eventTypes: ['NOPE'] })
          .expect(400),
      );
      contract.expectResponse('post', W, await http.post(W).set('Content-Type', 'text/plain').send('x').expect(415));
      contract.expectResponse('get', W, await http.get(`${W}?limit=1`).expect(200));
      contract.expectResponse('get', W, await http.get(`${W}?limit=0`).expect(400));
      const one = `${W}/${created.body.id}`;
      contract.expectResponse('get', `${W}/{id}`, await http.get(one).expect(200));
      contract.expectResponse('get', `${W}/{id}`, await http.get(`${W}/999999999`).expect(404));
      contract.expectResponse('patch', `${W}/{id}`, await http.patch(one).send({ description: 'x' }).expect(200));
      contract.expectResponse('patch', `${W}/{id}`, await http.patch(one).send({ enabled: 'x' }).expect(400));
      contract.expectResponse('post', `${W}/{id}/rotate-secret`, await http.post(`${one}/rotate-secret`).expect(200));
      contract.expectResponse('post', `${W}/{id}/rotate-secret`, await http.post(`${one}/rotate-secret`).expect(409));
      contract.expectResponse('post', `${W}/{id}/test`, await http.post(`${one}/test`).expect(200));
      contract.expectResponse('post', `${W}/{id}/test`, await http.post(`${W}/999999999/test`).expect(404));
      // This app makes no deliveries (WEBHOOKS_CONCURRENCY=0): one as a replica that does would make it of a change.
      const ticket = (await http.post('/api/tickets').send(buildTicketRequest()).expect(201)).body;
      // Read first, then inserted: an INSERT … SELECT would hold shared locks on change-log rows the relay and the
      // sequencer update.
      const db = app.get(DataSource);
      const [change] = await db.query('SELECT event_id, event_type, payload, occurred_at FROM change_log WHERE ticket_id = ?', [ticket.id]);
      await db.query(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, type, ticket_id, payload, occurred_at, created_at, next_attempt_at)
         VALUES (?, ?, ?, 'ticket.created', ?, ?, ?, NOW(3), NOW(3) + INTERVAL 1 HOUR)`,
        [created.body.id, change.event_id, change.event_type, ticket.id, change.payload, change.occurred_at],
      );
      const deliveries = await http.get(`${one}/deliveries`).expect(200);
      contract.expectResponse('get', `${W}/{id}/deliveries`, deliveries);
      const redeliver = `${W}/{id}/deliveries/{deliveryId}/redeliver`;
      contract.expectResponse('post', redeliver, await http.post(`${one}/deliveries/${deliveries.body.items[0].id}/redeliver`).expect(202));
      contract.expectResponse('post', redeliver, await http.post(`${one}/deliveries/999999999/redeliver`).expect(404));
      contract.expectResponse('post', `${W}/{id}/replay`, await http.post(`${one}/replay?since=2026-01-01T00:00:00Z`).expect(202));
      contract.expectResponse('post', `${W}/{id}/replay`, await http.post(`${one}/replay`).expect(400));
      contract.expectResponse('delete', `${W}/{id}`, await http.delete(one).expect(204));
      contract.expectResponse('delete', `${W}/{id}`, await http.delete(one).expect(404));
    });

    it('GET transitions (v1 and v2): 200, 400 and 404', async () => {
      for (const [collection, path] of [
        [COLLECTION, `${ONE}/transitions`],
        [V2_COLLECTION, `${V2_ONE}/transitions`],
      ]) {
        const id = (await http.post(collection).send(buildTicketRequest()).expect(201)).body.id;
        contract.expectResponse('get', path, await http.get(`${collection}/${id}/transitions`).expect(200));
        contract.expectResponse('get', path, await http.get(`${collection}/abc/transitions`).expect(400));
        contract.expectResponse('get', path, await http.get(`${collection}/999999999/transitions`).expect(404));
      }
    });

    it('PUT and PATCH (v1 and v2) with TICKET_WORKFLOW=strict: 409 for a move the workflow does not allow', async () => {
      const strict = await createTestApp({ env: { TICKET_WORKFLOW: 'strict' } });
      try {
        const strictHttp = request(strict.getHttpServer());
        for (const [collection, path] of [
          [COLLECTION, ONE],
          [V2_COLLECTION, V2_ONE],
        ]) {
          const one = `${collection}/${
            (
              await strictHttp
                .post(collection)
                .send(buildTicketRequest({ status: 'OPEN' }))
                .expect(201)
            ).body.id
          }`;
          contract.expectResponse(
            'put',
            path,
            await strictHttp
              .put(one)
              .send(buildTicketRequest({ status: 'CLOSED' }))
              .expect(409),
          );
          contract.expectResponse('patch', path, await strictHttp.patch(one).send({ status: 'RESOLVED' }).expect(409));
          contract.expectResponse('get', `${path}/transitions`, await strictHttp.get(`${one}/transitions`).expect(200));
        }
      } finally {
        await strict.close();
      }
    });

    it('DELETE: 204 without a body, 400, 404 and 412', async () => {
      const id = await createTicket();
      contract.expectResponse('delete', ONE, await http.delete(`${COLLECTION}/${id}`).set('If-Match', '"0-0"').expect(412));
      contract.expectResponse('delete', ONE, await http.delete(`${COLLECTION}/${id}`).expect(204));
      contract.expectResponse('delete', ONE, await http.delete(`${COLLECTION}/-1`).expect(400));
      contract.expectResponse('delete', ONE, await http.delete(`${COLLECTION}/${id}`).expect(404));
    });

    it('actuator: links, health (whole, component, probe, unknown name) and info', async () => {
      contract.expectResponse('get', '/actuator', await http.get('/actuator').expect(200));
      contract.expectResponse('get', '/actuator/health', await http.get('/actuator/health').expect(200));
      for (const name of ['db', 'liveness', 'readiness']) {
        contract.expectResponse('get', '/actuator/health/{name}', await http.get(`/actuator/health/${name}`).expect(200));
      }
      contract.expectResponse('get', '/actuator/health/{name}', await http.get('/actuator/health/nope').expect(404));
      contract.expectResponse('get', '/actuator/info', await http.get('/actuator/info').set('Accept', 'application/json').expect(200));
    });

    it('actuator: 404 for an endpoint that is not exposed', async () => {
      const healthOnly = await createTestApp({ env: { MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health' } });
      try {
        contract.expectResponse('get', '/actuator/info', await request(healthOnly.getHttpServer()).get('/actuator/info').expect(404));
      } finally {
        await healthOnly.close();
      }
    });

    it('503 while the database cannot be reached: tickets and health', async () => {
      const proxy = await TcpProxy.start(Number(process.env.DB_PORT ?? 3306));
      const cutOff = await createTestApp({
        env: { DB_PORT: String(proxy.port), DB_QUERY_TIMEOUT_MS: '1000', MANAGEMENT_HEALTH_PROBES_ENABLED: 'true' },
      });
      try {
        proxy.cut();
        const down = request(cutOff.getHttpServer());
        contract.expectResponse('get', COLLECTION, await down.get(COLLECTION).expect(503));
        contract.expectResponse(
          'get',
          V2_COLLECTION,
          await down
            .get(V2_COLLECTION)
            .expect(503)
            .expect('Content-Type', /^application\/problem\+json/),
        );
        contract.expectResponse('get', '/actuator/health', await down.get('/actuator/health').expect(503));
        contract.expectResponse('get', '/actuator/health/{name}', await down.get('/actuator/health/db').expect(503));
        contract.expectResponse('get', '/actuator/health/{name}', await down.get('/actuator/health/readiness').expect(503));
      } finally {
        await cutOff.close();
        await proxy.stop();
      }
    });
  });
});

describe('OpenAPI document with bearer tokens and a rate limit on', () => {
  let issuer: TestIssuer;
  let app: INestApplication;
  let http: ReturnType<typeof request>;
  let contract: OpenApiContract;

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
    app = await createTestApp({
      env: {
        SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUERURI: issuer.url,
        RATE_LIMIT_REQUESTS: '3',
        RATE_LIMIT_KEY_PREFIX: `openapi-${Date.now()}:`,
      },
    });
    http = request(app.getHttpServer());
    contract = await OpenApiContract.from((await http.get('/v3/api-docs').expect(200)).body);
  });

  afterAll(async () => {
    await app?.close();
    await issuer?.stop();
  });

  it("declares 401, 403 and 429 on every /api operation, in its version's error shape, and none on the actuator", () => {
    const errorSchema = contract.document.components.schemas.SpringErrorResponse;
    const problemSchema = contract.document.components.schemas.ProblemDetailResponse;
    for (const [path, item] of Object.entries(contract.document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const refusals = ['401', '403', '429'].map((status) => operation.responses[status]);
        if (!path.startsWith('/api/')) {
          expect([method, path, refusals]).toEqual([method, path, [undefined, undefined, undefined]]);
          continue;
        }
        for (const response of refusals) {
          if (path.startsWith('/api/v2/'))
            expect(response?.content).toEqual({ 'application/problem+json': expect.objectContaining({ schema: problemSchema }) });
          else expect(response?.content).toEqual({ 'application/json': expect.objectContaining({ schema: errorSchema }) });
        }
        expect(Object.keys(refusals[2].headers ?? {})).toEqual(['Retry-After', 'RateLimit', 'RateLimit-Policy']);
      }
    }
  });

  it('matches the real 401, 403 and 429 answers of both versions', async () => {
    // Requests without a token count by address: the document's own request, the two 401s, then the limit (3).
    contract.expectResponse('get', COLLECTION, await http.get(COLLECTION).expect(401));
    contract.expectResponse('get', V2_COLLECTION, await http.get(V2_COLLECTION).expect(401));
    contract.expectResponse('get', COLLECTION, await http.get(COLLECTION).expect(429));
    contract.expectResponse('get', V2_COLLECTION, await http.get(V2_COLLECTION).expect(429));
    const reader = `Bearer ${await issuer.token({ claims: { scope: 'tickets.read' } })}`;
    contract.expectResponse(
      'post',
      COLLECTION,
      await http.post(COLLECTION).set('Authorization', reader).send(buildTicketRequest()).expect(403),
    );
    contract.expectResponse(
      'post',
      V2_COLLECTION,
      await http.post(V2_COLLECTION).set('Authorization', reader).send(buildTicketRequest()).expect(403),
    );
  });
});

describe('Swagger UI', () => {
  const testApp = useTestApp();

  it.each(['/swagger-ui.html', '/swagger-ui/index.html'])("leads springdoc's address %s to the page", async (address) => {
    const redirect = await testApp.http.get(address).expect(302);
    expect(new URL(redirect.headers.location, `http://host${address}`).pathname).toBe('/swagger-ui/');
  });

  it.each(['/swagger-ui/', '/swagger-ui'])('serves the page at %s with every asset it links to', async (page) => {
    const html = await testApp.http
      .get(page)
      .expect(200)
      .expect('Content-Type', /text\/html/);
    const links = [...html.text.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, link]) => new URL(link, `http://host${page}`).pathname);
    expect(links).toEqual(
      expect.arrayContaining(['/swagger-ui/swagger-ui-bundle.js', '/swagger-ui/swagger-ui.css', '/swagger-ui/swagger-ui-init.js']),
    );
    for (const link of links) await testApp.http.get(link).expect(200);
  });

  it("loads the service's own document", async () => {
    const init = await testApp.http.get('/swagger-ui/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('"title": "Ticket service"');
    expect(init.text).toContain('"/api/tickets/{id}"');
  });
});
