import fc from 'fast-check';
import { v1Message } from './v1-message.js';

const ticket = fc.record({
  id: fc.nat(),
  title: fc.string({ unit: 'binary' }),
  description: fc.string(),
  status: fc.constantFrom('OPEN', 'CLOSED'),
  assignedTo: fc.option(fc.string()),
  createdAt: fc.date({ noInvalidDate: true }),
  resolvedAt: fc.constant(null),
});

describe('v1Message', () => {
  it('gives the bytes of the event as v1 recorded it, whatever the ticket holds, once its tags are taken out', () => {
    fc.assert(
      fc.property(ticket, fc.array(fc.string({ unit: 'binary' })), fc.uuid(), (fields, tags, eventId) => {
        const envelope = { eventId, eventType: 'UPDATED', occurredAt: new Date(0), ticketId: fields.id };
        const v1 = JSON.stringify({ ...envelope, ticket: fields });
        expect(v1Message(JSON.stringify({ ...envelope, ticket: { ...fields, tags } }))).toBe(v1);
        expect(v1Message(v1)).toBe(v1);
      }),
    );
  });

  it('leaves a title that names tags alone', () => {
    const payload = JSON.stringify({ eventId: 'e', ticket: { id: 1, title: '"tags": none' } });
    expect(v1Message(payload)).toBe(payload);
  });
});
