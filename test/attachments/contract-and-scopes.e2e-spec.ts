import request from 'supertest';
import { OpenApiContract } from '../support/openapi-contract.js';
import { createTestApp, useTestApp } from '../support/test-app.js';
import { TestIssuer } from '../support/test-issuer.js';
import { createTicket } from '../support/ticket-factory.js';
import { binaryBytes, MiB, uploadMultipart, uploadRaw } from '../support/attachment-uploads.js';

const JWT = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';

describe('Attachments in the OpenAPI document', () => {
  const testApp = useTestApp({ env: { ATTACHMENTS_MAX_PER_TICKET: '2' } });
  let contract: OpenApiContract;

  beforeAll(async () => {
    contract = await OpenApiContract.from((await testApp.http.get('/v3/api-docs').expect(200)).body);
  });

  it('documents the upload as multipart/form-data with a binary file part, and as a raw binary body', () => {
    for (const prefix of ['/api/tickets', '/api/v2/tickets']) {
      const body = contract.operation('post', `${prefix}/{id}/attachments`).requestBody!;
      expect(body.required).toBe(true);
      expect(body.content['multipart/form-data'].schema).toMatchObject({
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', format: 'binary' } },
      });
      expect(body.content['application/octet-stream'].schema).toMatchObject({ type: 'string', format: 'binary' });
    }
  });

  it('declares every answer the endpoints give, in the shape given (v1 and v2)', async () => {
    for (const [prefix, pathPrefix] of [
      ['/api/tickets', '/api/tickets'],
      ['/api/v2/tickets', '/api/v2/tickets'],
    ]) {
      const id = (await createTicket(testApp.http)).body.id;
      const collection = `${pathPrefix}/{id}/attachments`;
      const one = `${collection}/{attachmentId}`;
      const check = (method: string, path: string, response: request.Response) => contract.expectResponse(method, path, response);

      const created = await uploadRaw(testApp.http, `${prefix}/${id}/attachments`, binaryBytes(2000));
      check('post', collection, created);
      check('post', collection, await uploadMultipart(testApp.http, `${prefix}/${id}/attachments`, binaryBytes(10)));
      check('post', collection, await uploadRaw(testApp.http, `${prefix}/${id}/attachments`, binaryBytes(10))); // 409: two at most
      check('post', collection, await uploadRaw(testApp.http, `${prefix}/${id}/attachments`, Buffer.alloc(0)));
      check('post', collection, await uploadRaw(testApp.http, `${prefix}/999999999/attachments`, binaryBytes(10)));
      check('post', collection, await uploadRaw(testApp.http, `${prefix}/${id}/attachments`, binaryBytes(25 * MiB + 1)));
      check('get', collection, await testApp.http.get(`${prefix}/${id}/attachments?limit=1`));
      check('get', collection, await testApp.http.get(`${prefix}/${id}/attachments?limit=0`));
      check('get', one, await testApp.http.get(`${prefix}/${id}/attachments/${created.body.id}`));
      check('get', one, await testApp.http.get(`${prefix}/${id}/attachments/999999999`));
      const content = `${prefix}/${id}/attachments/${created.body.id}/content`;
      const statuses = Object.keys(contract.operation('get', `${one}/content`).responses);
      for (const response of [
        await testApp.http.get(content),
        await testApp.http.get(content).set('Range', 'bytes=0-9'),
        await testApp.http.get(content).set('If-None-Match', `"${created.body.sha256}"`),
      ])
        expect(statuses).toContain(String(response.status));
      check('get', `${one}/content`, await testApp.http.get(content).set('Range', 'bytes=5000-'));
      check('delete', one, await testApp.http.delete(`${prefix}/${id}/attachments/${created.body.id}`));
      check('delete', one, await testApp.http.delete(`${prefix}/${id}/attachments/${created.body.id}`));
    }
  });
});

describe('Attachments with tokens on: reading needs tickets.read, writing tickets.write', () => {
  let issuer: TestIssuer;

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    await issuer.addKey('rsa-1', 'RS256');
  });

  afterAll(() => issuer.stop());

  it('admits a reader to list, metadata and content, and only a writer to upload and delete', async () => {
    const app = await createTestApp({ env: { [`${JWT}ISSUERURI`]: issuer.url, [`${JWT}AUDIENCES`]: 'ticket-service' } });
    try {
      const http = request(app.getHttpServer());
      const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
      const reader = bearer(await issuer.token({ claims: { scope: 'tickets.read' } }));
      const writer = bearer(await issuer.token({ claims: { scope: 'tickets.read tickets.write', sub: 'desk-2' } }));
      const ticket = await http.post('/api/tickets').set(writer).send({
        title: 'Printer jam',
        description: 'Paper stuck',
        status: 'OPEN',
        priority: 'HIGH',
        requesterEmail: 'ann@example.com',
      });
      const path = `/api/tickets/${ticket.body.id}/attachments`;
      await uploadRaw(http, path, binaryBytes(10)).set(reader).expect(403);
      await uploadRaw(http, path, binaryBytes(10)).expect(401);
      const created = await uploadRaw(http, path, binaryBytes(10)).set(writer).expect(201);
      expect(created.body.createdBy).toBe('desk-2');
      await http.get(path).set(reader).expect(200);
      await http.get(`${path}/${created.body.id}`).set(reader).expect(200);
      await http.get(`${path}/${created.body.id}/content`).set(reader).expect(200);
      await http.get(`${path}/${created.body.id}/content`).expect(401);
      await http.delete(`${path}/${created.body.id}`).set(reader).expect(403);
      await http.delete(`${path}/${created.body.id}`).set(writer).expect(204);
    } finally {
      await app.close();
    }
  });
});
