import type { INestApplication } from '@nestjs/common';
import type { Browser, Page, Response } from 'playwright-core';
import request from 'supertest';
import { launchChromium } from '../support/browser.js';
import { listen } from '../support/http-client.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { binaryBytes, download, sha256 } from '../support/attachment-uploads.js';

describe("Swagger UI's upload form, in a browser", () => {
  let app: INestApplication;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    app = await createTestApp();
    const port = await listen(app);
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/swagger-ui/`);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('uploads a file chosen in the form of POST /api/tickets/{id}/attachments, which then downloads byte for byte', async () => {
    const http = request(app.getHttpServer());
    const ticketId = (await createTicket(http)).body.id;
    const bytes = binaryBytes(300_000);

    const operation = page.locator('#operations-attachments-addAttachment');
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('tr[data-param-name="id"] input').fill(String(ticketId));
    await operation
      .locator('input[type="file"]')
      .setInputFiles({ name: 'Bildschirmfoto 1.bin', mimeType: 'application/octet-stream', buffer: bytes });
    const [response]: [Response, void] = await Promise.all([
      page.waitForResponse(
        (candidate) => candidate.request().method() === 'POST' && new URL(candidate.url()).pathname.endsWith('/attachments'),
      ),
      operation.locator('.execute').click(),
    ]);

    expect(response.status()).toBe(201);
    const created = await response.json();
    expect(created).toMatchObject({ ticketId, filename: 'Bildschirmfoto 1.bin', size: bytes.length, sha256: sha256(bytes) });
    expect(response.request().headers()['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const content = await download(http, `/api/tickets/${ticketId}/attachments/${created.id}/content`);
    expect(sha256(content.bytes)).toBe(sha256(bytes));
  });
});
