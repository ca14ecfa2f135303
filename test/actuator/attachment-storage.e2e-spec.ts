import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { ServiceProcess } from '../support/service-process.js';
import { expectSpringError } from '../support/spring-error.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { createTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { attachmentRowCounts, binaryBytes, uploadRaw } from '../support/attachment-uploads.js';

/**
 * The filesystem storage's directory, at start-up and while the service runs. The tests run as root, whom a directory's
 * mode bits do not stop from writing, so "not writable" is provoked by what stops root too: the directory replaced by a
 * file or removed, and /proc (which takes no new file) at start-up.
 */
describe('Attachments: the filesystem storage directory', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'attachment-storage-'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('at start-up', () => {
    it.each([
      ['a regular file', 'a-file', 'is not a directory'],
      ['missing', 'missing', 'does not exist'],
      ['not writable', '/proc', 'is not writable'],
    ])('stops start-up with exit code 1 and one line naming ATTACHMENTS_DIRECTORY when it is %s', async (_label, name, problem) => {
      const directory = name.startsWith('/') ? name : join(root, name);
      if (name === 'a-file') await writeFile(directory, 'not a directory');
      const service = await ServiceProcess.launch({
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
        ATTACHMENTS_STORAGE: 'filesystem',
        ATTACHMENTS_DIRECTORY: directory,
      });
      try {
        const running = new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000).unref());
        expect(await Promise.race([service.exited, running])).toBe(1);
        const lines = service.output.split('\n').filter((line) => line.trim() !== '');
        expect(lines).toHaveLength(1);
        expect(JSON.parse(lines[0])).toMatchObject({ level: 'error', context: 'Bootstrap' });
        expect(JSON.parse(lines[0]).message).toMatch(new RegExp(`^Start-up failed: ATTACHMENTS_DIRECTORY ${directory} ${problem}`));
      } finally {
        // Should it start after all, it must not outlive the test.
        await service.stop();
      }
    });
  });

  describe('while the service runs (readiness)', () => {
    let app: INestApplication;
    let http: ReturnType<typeof request>;
    let directory: string;

    beforeAll(async () => {
      directory = join(root, 'volume');
      await mkdir(directory);
      app = await createTestApp({
        env: { ATTACHMENTS_STORAGE: 'filesystem', ATTACHMENTS_DIRECTORY: directory, MANAGEMENT_HEALTH_PROBES_ENABLED: 'true' },
      });
      http = request(app.getHttpServer());
    });

    afterAll(async () => {
      await app?.close();
    });

    async function expectReady(): Promise<void> {
      await http.get('/actuator/health/readiness').expect(200, { status: 'UP' });
      await http.get('/actuator/health/attachmentStorage').expect(200, { status: 'UP', details: { path: directory } });
      await http.get('/actuator/health/liveness').expect(200, { status: 'UP' });
    }

    async function expectNotReady(problem: string): Promise<void> {
      await http.get('/actuator/health/readiness').expect(503, { status: 'DOWN' });
      const component = await http.get('/actuator/health/attachmentStorage').expect(503);
      expect(component.body).toEqual({ status: 'DOWN', details: { error: `Error: ATTACHMENTS_DIRECTORY ${directory} ${problem}` } });
      // The process itself is fine: liveness stays UP, so it is not restarted for a volume that went away.
      await http.get('/actuator/health/liveness').expect(200, { status: 'UP' });
    }

    it('reports the storage in readiness: DOWN while the directory is a file or gone, UP again once it is back', async () => {
      const ticketId = (await createTicket(http)).body.id;
      const path = `/api/tickets/${ticketId}/attachments`;
      await expectReady();
      await uploadRaw(http, path, binaryBytes(10)).expect(201);
      const rows = await attachmentRowCounts(app);

      await rm(directory, { recursive: true });
      await writeFile(directory, 'a file where the volume was');
      await expectNotReady('is not a directory');
      // An upload meanwhile is a 503 that says why, not a 500, and stores nothing.
      const refused = expectSpringError(asHttpResponse(await uploadRaw(http, path, binaryBytes(10))), 503, path);
      expect(refused.message).toBe('The attachment storage cannot be written (ATTACHMENTS_DIRECTORY: ENOTDIR)');
      expect(await attachmentRowCounts(app)).toEqual(rows);

      await rm(directory);
      await expectNotReady('does not exist');
      // The service does not make the directory again: it would not be the volume.
      await uploadRaw(http, path, binaryBytes(10)).expect(503);
      await http.get('/actuator/health/readiness').expect(503);

      await mkdir(directory);
      await expectReady();
      await uploadRaw(http, path, binaryBytes(10)).expect(201);
    });

    it('lists the storage among the components of /actuator/health', async () => {
      const health = await http.get('/actuator/health').expect(200);
      expect(health.body.components.attachmentStorage).toEqual({ status: 'UP', details: { path: directory } });
    });
  });
});
