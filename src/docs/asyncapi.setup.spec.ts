import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../config/app-config.js';
import { asyncApiFor, type EventTopology } from './asyncapi.setup.js';

const SOURCE = readFileSync(new URL('../../docs/asyncapi.yaml', import.meta.url), 'utf8');
const DEFAULTS: EventTopology = parseConfig({}).rabbitmq;

type Json = Record<string, any>;

/** Every string in the document, with where it is. */
function strings(value: unknown, at = ''): Array<[string, string]> {
  if (typeof value === 'string') return [[at, value]];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => strings(inner, `${at}/${key}`));
}

describe('asyncApiFor', () => {
  it('serves docs/asyncapi.yaml as written to a service with the default topology', () => {
    const { yaml, json } = asyncApiFor(SOURCE, DEFAULTS);
    expect(yaml).toBe(SOURCE);
    expect(JSON.parse(json)).toEqual(parseYaml(SOURCE));
  });

  it.each([
    ['plain names', { exchange: 'billing.events', exchangeType: 'direct', queue: 'billing.inbox', routingKey: 'billing.ticket' }],
    // Names YAML would read as something else unquoted, and names that are each other's defaults.
    ['names that need quoting', { exchange: 'ex: #1', exchangeType: 'fanout', queue: '123', routingKey: 'true' }],
    ['names swapped', { exchange: 'ticket.queue', exchangeType: 'topic', queue: 'ticket.routing.key', routingKey: 'ticket.exchange' }],
  ])('names the topology in force, everywhere the defaults were named: %s', (_case, topology: EventTopology) => {
    const { yaml, json } = asyncApiFor(SOURCE, topology);
    const served: Json = parseYaml(yaml);
    expect(JSON.parse(json)).toEqual(served);
    const original: Json = parseYaml(SOURCE);
    const channels = Object.entries<Json>(served.channels);
    const exchanges = channels.filter(([, channel]) => channel.bindings.amqp.exchange);
    expect(exchanges.length).toBe(Object.values<Json>(original.channels).filter((channel) => channel.bindings.amqp.exchange).length);
    for (const [, channel] of exchanges)
      expect(channel.bindings.amqp.exchange).toMatchObject({ name: topology.exchange, type: topology.exchangeType });
    expect(served.channels.ticketEvents.address).toBe(topology.routingKey);
    expect(served.channels.ticketQueue.address).toBe(topology.queue);
    expect(served.channels.ticketQueue.bindings.amqp.queue.name).toBe(topology.queue);
    // The later kinds keep their fixed routing keys.
    expect(served.channels.ticketDeleted.address).toBe(original.channels.ticketDeleted.address);
    // The prose names them too: no default name is left in backquotes, and each new one is where its default was.
    const prose = (document: Json) => strings(document).filter(([, text]) => text.includes('`'));
    const quoted = (text: string) => [...text.matchAll(/`([^`\n]+)`/g)].map(([, name]) => name);
    const renamed = new Map<string, string>(
      (['exchange', 'exchangeType', 'queue', 'routingKey'] as const).map((key) => [DEFAULTS[key], topology[key]]),
    );
    const expected = prose(original).map(([at, text]) => [at, quoted(text).map((name) => renamed.get(name) ?? name)]);
    expect(prose(served).map(([at, text]) => [at, quoted(text)])).toEqual(expected);
  });
});
