import fc from 'fast-check';
import { TicketPriority } from './ticket-priority.enum.js';
import { TicketStatus } from './ticket-status.enum.js';
import { listedTicketFromRow, listedTicketJson, type TicketRow, type TicketTextRow, ticketFromRow } from './ticket-row.js';

const created = new Date('2026-11-23T09:00:00.123Z');
const row: TicketRow = {
  id: '9007199254740',
  title: 'Printer jam',
  description: 'Paper stuck in tray 2',
  status: TicketStatus.RESOLVED,
  priority: TicketPriority.HIGH,
  requester_email: 'ann@example.com',
  assigned_to: null,
  created_at: created,
  updated_at: created,
  resolved_at: null,
};

describe('ticketFromRow', () => {
  it('maps a raw row to the wire shape, with the bigint id as a number and keys in contract order', () => {
    const ticket = ticketFromRow(row);
    expect(JSON.stringify(ticket)).toBe(
      '{"id":9007199254740,"title":"Printer jam","description":"Paper stuck in tray 2","status":"RESOLVED","priority":"HIGH",' +
        '"requesterEmail":"ann@example.com","assignedTo":null,"createdAt":"2026-11-23T09:00:00.123Z",' +
        '"updatedAt":"2026-11-23T09:00:00.123Z","resolvedAt":null}',
    );
  });

  it('keeps an assignee and a resolution time', () => {
    const ticket = ticketFromRow({ ...row, assigned_to: 'desk-2', resolved_at: created });
    expect(ticket.assignedTo).toBe('desk-2');
    expect(ticket.resolvedAt).toEqual(created);
  });
});

describe('listedTicketFromRow', () => {
  it('gives the JSON ticketFromRow gives for the same row read with date strings, byte for byte', () => {
    const dated: TicketRow = {
      ...row,
      assigned_to: 'desk-2',
      updated_at: new Date('2026-11-23T09:05:00.000Z'),
      resolved_at: new Date('2026-11-23T09:05:00.000Z'),
    };
    // The same row as MariaDB's text gives it with date strings.
    const text: TicketTextRow = {
      ...dated,
      created_at: '2026-11-23 09:00:00.123',
      updated_at: '2026-11-23 09:05:00.000',
      resolved_at: '2026-11-23 09:05:00.000',
    };
    expect(JSON.stringify(listedTicketFromRow(text))).toBe(JSON.stringify(ticketFromRow(dated)));
    expect(JSON.stringify(listedTicketFromRow({ ...text, resolved_at: null }))).toBe(
      JSON.stringify(ticketFromRow({ ...dated, resolved_at: null })),
    );
  });
});

describe('listedTicketJson', () => {
  const instant = fc
    .date({ min: new Date('1000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
    .map((date) => date.toISOString().replace('T', ' ').replace('Z', ''));
  // Any UTF-16 text, lone surrogates, control characters, quotes, backslashes and U+2028 among it.
  const anyText = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.constantFrom('"', '\\', '\u2028', '\u0000', '\ud800', 'é', '😀', '/') }),
  );
  const textRow: fc.Arbitrary<TicketTextRow> = fc.record({
    id: fc.oneof(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }).map(String), fc.integer({ min: 1 })),
    title: anyText,
    description: anyText,
    status: fc.constantFrom(...Object.values(TicketStatus)),
    priority: fc.constantFrom(...Object.values(TicketPriority)),
    requester_email: anyText,
    assigned_to: fc.option(anyText, { nil: null }),
    created_at: instant,
    updated_at: instant,
    resolved_at: fc.option(instant, { nil: null }),
  });

  it('writes the bytes JSON.stringify writes for the listed ticket, for any row', () => {
    fc.assert(
      fc.property(textRow, (row) => {
        expect(listedTicketJson(row)).toBe(JSON.stringify(listedTicketFromRow(row)));
      }),
      { numRuns: 2000 },
    );
  });
});
