import { Webhook } from 'standardwebhooks';
import { newSecret, webhookBody, webhookHeaders } from './webhook-message.js';

describe('webhook message', () => {
  it('makes secrets of whsec_ and the base64 of 32 random bytes', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });

  it('wraps the event JSON unchanged as data', () => {
    const event = '{"eventId":"e1","eventType":"UPDATED","ticketId":7,"ticket":{"title":"a\\u00e9"}}';
    const body = webhookBody('ticket.updated', new Date('2026-11-22T10:00:00.123Z'), event);
    expect(body).toBe(`{"type":"ticket.updated","timestamp":"2026-11-22T10:00:00.123Z","data":${event}}`);
    expect(JSON.parse(body).data).toEqual(JSON.parse(event));
  });

  it('signs so that the standardwebhooks verifier accepts each secret, also during a rotation', () => {
    const [fresh, old] = [newSecret(), newSecret()];
    const body = webhookBody('ticket.created', new Date(), '{"eventId":"e2"}');
    const headers = webhookHeaders([fresh, old], 'e2', new Date(), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(fresh).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(old).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });
});
