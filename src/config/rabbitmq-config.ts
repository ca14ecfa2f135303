import { ConfigError, type EnvReader } from './env-reader.js';

const QUEUE_TYPES = ['classic', 'quorum'] as const;
export type QueueType = (typeof QUEUE_TYPES)[number];

export interface RabbitMqConfig {
  /** Brokers tried in turn (one per cluster node); a connection that is lost is made again to the next one. */
  urls: string[];
  exchange: string;
  exchangeType: string;
  queue: string;
  routingKey: string;
  queueType: QueueType;
  /** Optional queue arguments (x-max-length, x-message-ttl, x-dead-letter-exchange), as declared. */
  queueArguments: Record<string, string | number>;
}

export function parseRabbitMqConfig(read: EnvReader): RabbitMqConfig {
  return {
    urls: brokerUrls(read),
    exchange: read.string('RABBITMQ_EXCHANGE', 'ticket.exchange'),
    exchangeType: read.oneOf('RABBITMQ_EXCHANGE_TYPE', 'topic', ['topic', 'direct', 'fanout', 'headers']),
    queue: read.string('RABBITMQ_QUEUE', 'ticket.queue'),
    routingKey: read.string('RABBITMQ_ROUTING_KEY', 'ticket.routing.key', true),
    queueType: read.oneOf('RABBITMQ_QUEUE_TYPE', 'classic', QUEUE_TYPES),
    queueArguments: queueArguments(read),
  };
}

/**
 * `SPRING_RABBITMQ_ADDRESSES` (or `RABBITMQ_ADDRESSES`): comma-separated `host:port` or AMQP URLs. Plain
 * `host:port` entries take user, password and virtual host from `SPRING_RABBITMQ_USERNAME`, `…_PASSWORD`,
 * `…_VIRTUAL_HOST`, or else from `RABBITMQ_URL`. Without addresses, `RABBITMQ_URL` is the one broker.
 */
function brokerUrls(read: EnvReader): string[] {
  const url = read.amqpUrl('RABBITMQ_URL', 'amqp://guest:guest@127.0.0.1:5672');
  const name = read.has('SPRING_RABBITMQ_ADDRESSES') ? 'SPRING_RABBITMQ_ADDRESSES' : 'RABBITMQ_ADDRESSES';
  const addresses = read.list(name, '');
  if (addresses.length === 0) return [url];
  const base = new URL(url);
  const user = read.string('SPRING_RABBITMQ_USERNAME', decodeURIComponent(base.username) || 'guest');
  const password = read.string('SPRING_RABBITMQ_PASSWORD', decodeURIComponent(base.password) || 'guest', true);
  const vhost = read.string('SPRING_RABBITMQ_VIRTUAL_HOST', decodeURIComponent(base.pathname.slice(1)) || '/');
  return addresses.map((address) => {
    if (/^amqps?:\/\//.test(address)) return read.validAmqpUrl(name, address);
    if (!/^[^\s:/@]+:\d{1,5}$/.test(address)) throw new ConfigError(`${name} must list host:port or amqp:// URLs, got "${address}"`);
    const vhostPath = vhost === '/' ? '' : `/${encodeURIComponent(vhost)}`;
    return `amqp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${address}${vhostPath}`;
  });
}

function queueArguments(read: EnvReader): Record<string, string | number> {
  const args: Record<string, string | number> = {};
  if (read.has('RABBITMQ_QUEUE_MAX_LENGTH')) args['x-max-length'] = read.int('RABBITMQ_QUEUE_MAX_LENGTH', 0);
  if (read.has('RABBITMQ_QUEUE_MESSAGE_TTL_MS')) args['x-message-ttl'] = read.int('RABBITMQ_QUEUE_MESSAGE_TTL_MS', 0);
  if (read.has('RABBITMQ_QUEUE_DEAD_LETTER_EXCHANGE')) {
    args['x-dead-letter-exchange'] = read.string('RABBITMQ_QUEUE_DEAD_LETTER_EXCHANGE', '', true);
  }
  return args;
}
