import { rm } from 'node:fs/promises';
import amqp from 'amqplib';
import type { RowDataPacket } from 'mysql2';
import { createConnection } from 'mysql2/promise';

/**
 * Drops every database of the run (the workers' and the ones suites made for themselves, all named
 * tickets_test_<run>...), the run's and its workers' exchanges and queues, and the run's build of the service
 * (kept when TEST_KEEP_BUILD is set: scripts/test.mjs runs jest once more on the same build).
 */
export default async function globalTeardown(globalConfig: { maxWorkers: number }): Promise<void> {
  const env = process.env;
  const db = await createConnection({
    host: env.DB_HOST,
    port: Number(env.DB_PORT ?? 3306),
    user: env.DB_USERNAME ?? 'root',
    password: env.DB_PASSWORD ?? '',
  });
  const [databases] = await db.query<Array<{ name: string } & RowDataPacket>>(
    'SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE ?',
    [`${env.DB_DATABASE!.replaceAll('_', '\\_')}%`],
  );
  for (const { name } of databases) await db.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await db.end();

  const connection = await amqp.connect(env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
  const channel = await connection.createChannel();
  // The run's own names (the cluster suite uses them) and its workers' (worker-env.ts).
  const suffixes = ['', ...Array.from({ length: globalConfig.maxWorkers }, (_, i) => `.w${i + 1}`)];
  for (const suffix of suffixes) {
    await channel.deleteQueue(`${env.RABBITMQ_QUEUE}${suffix}`);
    await channel.deleteExchange(`${env.RABBITMQ_EXCHANGE}${suffix}`);
  }
  await connection.close();

  if (env.TEST_SERVICE_BUILD && !env.TEST_KEEP_BUILD) await rm(env.TEST_SERVICE_BUILD, { recursive: true, force: true });
}
