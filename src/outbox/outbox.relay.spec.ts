import type { PublishOutcome } from '../messaging/rabbitmq.client.js';
import { type PendingEvent, confirmedPrefixes } from './outbox.relay.js';

const event = (id: number, partition: number): PendingEvent => ({
  id: String(id),
  partition,
  eventId: `e${id}`,
  eventType: 'UPDATED',
  routingKey: null,
  payload: '{}',
  occurredAt: new Date(0),
  attempts: 0,
});
const ok: PublishOutcome = { confirmed: true };
const lost: PublishOutcome = { confirmed: false, refused: false, reason: 'channel closed' };

describe('confirmedPrefixes', () => {
  it('counts every event of a fully confirmed batch as published, grouped by partition', () => {
    const { confirmed, stopped } = confirmedPrefixes([event(1, 0), event(2, 1), event(3, 0)], [ok, ok, ok]);
    expect(Object.fromEntries(confirmed)).toEqual({ 0: ['1', '3'], 1: ['2'] });
    expect(stopped).toEqual([]);
  });

  it('keeps a confirmed event behind an unconfirmed one of its partition, so the two go out again in order', () => {
    const { confirmed, stopped } = confirmedPrefixes([event(1, 0), event(2, 0), event(3, 0)], [ok, lost, ok]);
    expect(Object.fromEntries(confirmed)).toEqual({ 0: ['1'] });
    expect(stopped.map(({ event }) => event.id)).toEqual(['2']);
  });

  it('lets other partitions count what was confirmed after one partition stopped', () => {
    const { confirmed, stopped } = confirmedPrefixes([event(1, 0), event(2, 1), event(3, 1)], [lost, ok, ok]);
    expect(Object.fromEntries(confirmed)).toEqual({ 1: ['2', '3'] });
    expect(stopped.map(({ event }) => event.id)).toEqual(['1']);
  });
});
