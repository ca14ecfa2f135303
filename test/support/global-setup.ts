import { randomBytes } from 'node:crypto';

/**
 * Gives the run its own database and broker objects, so a service running on the same servers (or another
 * test run) is never disturbed. Test files inherit these variables; global teardown removes the objects.
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
}
