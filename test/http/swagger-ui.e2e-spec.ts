import type { INestApplication } from '@nestjs/common';
import type { Browser, Page, Response } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { listen } from '../support/http-client.js';
import { createTestApp } from '../support/test-app.js';

describe("Swagger UI's Try it out, in a browser", () => {
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

  /** Opens an operation of the v1 group and switches it to Try it out. */
  async function tryOut(operationId: string): Promise<void> {
    const operation = page.locator(`#operations-tickets-${operationId}`);
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
  }

  /** Presses Execute on an operation and returns the response the page got. */
  async function execute(operationId: string, method: string): Promise<Response> {
    const [response] = await Promise.all([
      page.waitForResponse(
        (candidate) => candidate.request().method() === method && new URL(candidate.url()).pathname.startsWith('/api/tickets'),
      ),
      page.locator(`#operations-tickets-${operationId} .execute`).click(),
    ]);
    return response;
  }

  it('creates a new ticket on each Execute of POST and replaces it with PUT, sending no header the user did not fill in', async () => {
    await tryOut('createTicket');
    const first = await execute('createTicket', 'POST');
    const second = await execute('createTicket', 'POST');
    expect([first.status(), second.status()]).toEqual([201, 201]);
    const [{ id }, { id: otherId }] = [await first.json(), await second.json()];
    expect(otherId).not.toBe(id);

    await tryOut('replaceTicket');
    await page.locator('#operations-tickets-replaceTicket tr[data-param-name="id"] input').fill(String(id));
    const replaced = await execute('replaceTicket', 'PUT');
    expect(replaced.status()).toBe(200);
    expect(await replaced.request().allHeaders()).not.toHaveProperty('if-match');
  });
});
