import type { INestApplication } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { AppModule } from '../../src/app.module.js';
import { ApplicationAvailability } from '../../src/actuator/lifecycle/application-availability.js';
import { setupApp } from '../../src/app.setup.js';
import { ServiceExpressAdapter } from '../../src/common/http/express-adapter.js';
import { parseConfig } from '../../src/config/app-config.js';
import { waitUntil } from './waits.js';
import { connectToDatabase } from './database.js';

export interface TestAppOptions {
  /** Settings for this app instance on top of the run's environment, e.g. { DB_PORT: String(proxy.port) }. */
  env?: Record<string, string>;
}

/** Whether this suite (a test file has its own copy of this module) has started an app that mails. */
let mailedBefore = false;

/**
 * The mail notifier's cursor and its queue are the worker's database's, which its suites share in turn: the first app
 * of a suite that mails starts as a deployment switching mail on does, after every change recorded so far, and the
 * notifications earlier suites left waiting are taken out of its way (their SMTP servers are gone).
 */
async function startMailAfterEarlierSuites(database: string | undefined): Promise<void> {
  // A database no app has created (1049) or migrated (1146) yet holds nothing to forget.
  const nothingYet = (error: unknown) => {
    if (![1049, 1146].includes((error as { errno?: number }).errno ?? 0)) throw error;
  };
  const db = await connectToDatabase({ database }).catch(nothingYet);
  if (!db) return;
  try {
    await db.query('DELETE FROM mail_notifier');
    await db.query("UPDATE mail_notifications SET status = 'failed', last_answer = 'left by an earlier suite' WHERE status = 'pending'");
  } catch (error) {
    nothingYet(error);
  } finally {
    await db.end();
  }
}

/** Boots the real AppModule against the run's own database and broker objects. */
export async function createTestApp(options: TestAppOptions = {}): Promise<INestApplication> {
  if (options.env?.MAIL_SMTP_URL && !mailedBefore) {
    mailedBefore = true;
    await startMailAfterEarlierSuites(options.env.DB_DATABASE ?? process.env.DB_DATABASE);
  }
  // Test output stays quiet, also for the failures tests provoke on purpose; LOG_LEVEL=error (or lower) shows them.
  const config = parseConfig({ LOG_LEVEL: 'silent', ...process.env, ...options.env });
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
    .overrideProvider(ConfigService)
    .useValue(new ConfigService(config))
    .compile();
  const app = setupApp(
    moduleRef.createNestApplication<NestExpressApplication>(new ServiceExpressAdapter(), { bodyParser: false, logger: ['error'] }),
  );
  try {
    await app.init();
  } catch (error) {
    // A start-up a test expects to fail must not leave the connections it opened behind.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/**
 * Resolves once the app accepts traffic, as its readiness probe says: start-up work it does not wait for before
 * listening (the SLA reconciliation) has settled.
 */
export async function untilReady(app: INestApplication, timeoutMs = 30_000): Promise<void> {
  const availability = app.get(ApplicationAvailability);
  await waitUntil(() => availability.readiness === 'ACCEPTING_TRAFFIC', timeoutMs, 'readiness');
}

export interface TestAppHandle {
  app: INestApplication;
  http: ReturnType<typeof request>;
}

/** One app for the enclosing describe block: created before its tests, closed after them. */
export function useTestApp(options: TestAppOptions = {}): TestAppHandle {
  const handle = {} as TestAppHandle;
  beforeAll(async () => {
    handle.app = await createTestApp(options);
    handle.http = request(handle.app.getHttpServer());
  });
  afterAll(async () => {
    await handle.app?.close();
  });
  return handle;
}
