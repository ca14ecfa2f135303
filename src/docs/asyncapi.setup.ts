import { readFileSync } from 'node:fs';
import { ConfigService } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express } from 'express';
import { isMap, parseDocument, visit } from 'yaml';
import type { AppConfig } from '../config/app-config.js';
import type { RabbitMqConfig } from '../config/rabbitmq-config.js';

/** Where the event contract is served, next to the OpenAPI document. */
export const ASYNCAPI_PATHS = { yaml: '/asyncapi.yaml', json: '/asyncapi.json' } as const;

/** docs/asyncapi.yaml: two levels above this file, in src/ and in the compiled output alike (the image copies it). */
const ASYNCAPI_FILE = new URL('../../docs/asyncapi.yaml', import.meta.url);

/** What the document names of the broker's topology: the settings RABBITMQ_EXCHANGE(_TYPE), RABBITMQ_QUEUE, RABBITMQ_ROUTING_KEY. */
export type EventTopology = Pick<RabbitMqConfig, 'exchange' | 'exchangeType' | 'queue' | 'routingKey'>;

/** Where the document names each of them (the ticketEvents channel publishes, ticketQueue is where consumers read). */
const PUBLISHED = ['channels', 'ticketEvents'];
const CONSUMED = ['channels', 'ticketQueue'];

/**
 * The event contract as a service with this topology serves it. docs/asyncapi.yaml names the default exchange,
 * exchange type, queue and routing key; a service configured otherwise publishes elsewhere, so its document names
 * its own: in every channel's exchange binding, in the addresses of the published channel (the routing key) and of
 * the queue, and wherever the descriptions name one of them in backquotes. The other routing keys are fixed. With
 * the defaults the document is served as written, byte for byte; otherwise it is written out again (same content,
 * long lines unfolded).
 */
export function asyncApiFor(source: string, topology: EventTopology): { yaml: string; json: string } {
  const document = parseDocument(source);
  const written: EventTopology = {
    exchange: String(document.getIn([...PUBLISHED, 'bindings', 'amqp', 'exchange', 'name'])),
    exchangeType: String(document.getIn([...PUBLISHED, 'bindings', 'amqp', 'exchange', 'type'])),
    queue: String(document.getIn([...CONSUMED, 'bindings', 'amqp', 'queue', 'name'])),
    routingKey: String(document.getIn([...PUBLISHED, 'address'])),
  };
  const keys = Object.keys(written) as Array<keyof EventTopology>;
  if (keys.every((key) => written[key] === topology[key])) return { yaml: source, json: JSON.stringify(document.toJS()) };

  // The prose first, while every name is still the written one: one pass, so a new name is never replaced again.
  const renamed = new Map<string, string>();
  for (const key of keys) if (!renamed.has(written[key])) renamed.set(written[key], topology[key]);
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && node.value.includes('`')) {
        node.value = node.value.replace(/`([^`\n]+)`/g, (quoted, name: string) => {
          const now = renamed.get(name);
          return now === undefined ? quoted : `\`${now}\``;
        });
      }
    },
  });
  const channels = document.getIn(['channels']);
  if (isMap(channels)) {
    for (const { value: channel } of channels.items) {
      const exchange = isMap(channel) ? channel.getIn(['bindings', 'amqp', 'exchange']) : undefined;
      if (!isMap(exchange)) continue;
      exchange.set('name', topology.exchange);
      exchange.set('type', topology.exchangeType);
    }
  }
  document.setIn([...PUBLISHED, 'address'], topology.routingKey);
  document.setIn([...CONSUMED, 'address'], topology.queue);
  document.setIn([...CONSUMED, 'bindings', 'amqp', 'queue', 'name'], topology.queue);
  // The stringifier quotes a name that YAML would read as something else (a number, a comment, a mapping).
  return { yaml: document.toString({ lineWidth: 0 }), json: JSON.stringify(document.toJS()) };
}

/**
 * Serves the AsyncAPI document of the events (YAML, and the same as JSON), naming the exchange, queue and routing key
 * the service is configured with. The file is read once, at start-up, so an installation that lacks it fails to
 * start instead of answering 404 to the consumers who look for it.
 */
export function serveAsyncApi(app: NestExpressApplication): void {
  const { exchange, exchangeType, queue, routingKey } = app.get(ConfigService<AppConfig, true>).get('rabbitmq', { infer: true });
  const { yaml, json } = asyncApiFor(readFileSync(ASYNCAPI_FILE, 'utf8'), { exchange, exchangeType, queue, routingKey });
  const http: Express = app.getHttpAdapter().getInstance();
  // application/yaml is the registered YAML media type (RFC 9512).
  http.get(ASYNCAPI_PATHS.yaml, (_req, res) => res.type('application/yaml; charset=utf-8').send(yaml));
  http.get(ASYNCAPI_PATHS.json, (_req, res) => res.type('application/json; charset=utf-8').send(json));
}
