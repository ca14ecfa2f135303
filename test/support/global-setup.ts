import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';

/**
 * Gives the run its own database and broker objects, so a service running on the same servers (or another
 * test run) is never disturbed. Test files inherit these variables; test/support/worker-env.ts narrows them to
 * the worker's own names, and global teardown removes everything named after the run. Also compiles the service
 * once into a run-private folder, for tests that need it as a real process (signals, crashes, several replicas).
 * scripts/test.mjs runs jest twice on one run: it sets TEST_RUN_ID, and the second run finds the build in place.
 */
export default function globalSetup(): void {
  const env = process.env;
  const run = (env.TEST_RUN_ID ??= randomBytes(4).toString('hex'));
  env.DB_DATABASE = `tickets_test_${run}`;
  env.RABBITMQ_EXCHANGE = `ticket.exchange.test.${run}`;
  env.RABBITMQ_QUEUE = `ticket.queue.test.${run}`;
  env.RABBITMQ_ROUTING_KEY = 'ticket.routing.key';
  env.SERVER_PORT = '0';
  // Same depth as dist/, so paths relative to the compiled files (e.g. ../package.json) resolve alike.
  env.TEST_SERVICE_BUILD = `.test-build-${run}`;
  if (!existsSync(env.TEST_SERVICE_BUILD)) {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', env.TEST_SERVICE_BUILD], { stdio: 'inherit' });
  }
}
