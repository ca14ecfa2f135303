import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * Gives the run its own database and broker objects, so a service running on the same servers (or another
 * test run) is never disturbed. Test files inherit these variables; global teardown removes the objects.
 * Also compiles the service once into a run-private folder, for tests that need it as a real process
 * (signals, crashes, several replicas).
 */
export default function globalSetup(): void {
  const run = randomBytes(4).toString('hex');
  const env = process.env;
  env.TEST_RUN_ID = run;
  env.DB_DATABASE = `tickets_test_${run}`;
  env.RABBITMQ_EXCHANGE = `ticket.exchange.test.${run}`;
  env.RABBITMQ_QUEUE = `ticket.queue.test.${run}`;
  env.RABBITMQ_ROUTING_KEY = 'ticket.routing.key';
  env.SERVER_PORT = '0';
  // Same depth as dist/, so paths relative to the compiled files (e.g. ../package.json) resolve alike.
  env.TEST_SERVICE_BUILD = `.test-build-${run}`;
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', env.TEST_SERVICE_BUILD], { stdio: 'inherit' });
}
