import { rm } from 'node:fs/promises';

/**
 * Removes the run's build of the service. Unlike the main suite's teardown it does not connect to the
 * machine's MariaDB and RabbitMQ: cluster specs create nothing there (their clusters remove themselves).
 */
export default async function clusterGlobalTeardown(): Promise<void> {
  if (process.env.TEST_SERVICE_BUILD) await rm(process.env.TEST_SERVICE_BUILD, { recursive: true, force: true });
}
