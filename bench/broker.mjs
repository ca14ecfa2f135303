// The broker objects a benchmark's service declared under its own names, removed when the benchmark ends.
import amqp from 'amqplib';

export async function removeBrokerObjects({ RABBITMQ_EXCHANGE, RABBITMQ_QUEUE }) {
  const connection = await amqp.connect(process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(RABBITMQ_QUEUE);
    await channel.deleteExchange(RABBITMQ_EXCHANGE);
  } finally {
    await connection.close();
  }
}

export async function removeQueue(queue) {
  const connection = await amqp.connect(process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
  try {
    await (await connection.createChannel()).deleteQueue(queue);
  } finally {
    await connection.close();
  }
}
