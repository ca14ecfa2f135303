import fc from 'fast-check';
import { TicketPriority } from './ticket-priority.enum.js';
import { TicketStatus } from './ticket-status.enum.js';
import { listedTicketFromRow, type TicketRow, type TicketTextRow, ticketFromRow, ticketJsonBytes } from './ticket-row.js';

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

describe('ticketJsonBytes', () => {
  /** JSON as another server might quote it: every escape it may choose (`\/`, upper-case `\u` for anything not ASCII). */
  const quotedOtherwise = (ticket: { id: number; title: string; assignedTo: null }) => {
    const escaped = Array.from({ length: ticket.title.length }, (_, i) => {
      const unit = ticket.title.charCodeAt(i);
      const c = ticket.title[i];
      if (c === '"' || c === '\\' || c === '/') return `\\${c}`;
      return unit < 0x20 || unit > 0x7e ? `\\u${unit.toString(16).toUpperCase().padStart(4, '0')}` : c;
    }).join('');
    return `{"id":${ticket.id},"title":"${escaped}","assignedTo":null}`;
  };
  const listed = fc.record({
    id: fc.nat(),
    title: fc.oneof(
      fc.string({ unit: 'binary' }).filter((text) => text.isWellFormed()),
      fc.string({ unit: fc.constantFrom('/', '"', '\\', '\n', '\t', '\u000b', '\u2028', 'é', '😀', 'a') }),
    ),
    assignedTo: fc.constant(null),
  });

  it('writes any row of a server that quotes otherwise as JSON.stringify does', () => {
    fc.assert(
      fc.property(listed, (ticket) => {
        expect(ticketJsonBytes(false)([Buffer.from(quotedOtherwise(ticket))]).toString()).toBe(JSON.stringify(ticket));
      }),
    );
  });

  it('with short escapes alike, rewrites only rows with a \\u escape, and keeps the bytes of every other row', () => {
    const json = ticketJsonBytes(true);
    const plain = Buffer.from('{"id":1,"title":"line\\nbreak \\"quoted\\" / é😀"}');
    expect(json([plain])).toBe(plain);
    expect(json([Buffer.from('{"id":1,"title":"\\u000B"}')]).toString()).toBe('{"id":1,"title":"\\u000b"}');
  });
});
