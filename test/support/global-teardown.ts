import { rm } from 'node:fs/promises';
import amqp from 'amqplib';
import { createConnection } from 'mysql2/promise';

/** Drops this run's database and broker objects and its build of the service. */
export default async function globalTeardown(): Promise<void> {
  const env = process.env;
  const db = await createConnection({
    host: env.DB_HOST,
    port: Number(env.DB_PORT ?? 3306),
    user: env.DB_USERNAME ?? 'root',
    password: env.DB_PASSWORD ?? '',
  });
  await db.query(`DROP DATABASE IF EXISTS \`${env.DB_DATABASE}\``);
  await db.end();

  const connection = await amqp.connect(env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
  const channel = await connection.createChannel();
  await channel.deleteQueue(env.RABBITMQ_QUEUE!);
  await channel.deleteExchange(env.RABBITMQ_EXCHANGE!);
  await connection.close();

  if (env.TEST_SERVICE_BUILD) await rm(env.TEST_SERVICE_BUILD, { recursive: true, force: true });
}
