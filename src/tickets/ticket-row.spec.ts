import { TicketPriority } from './ticket-priority.enum.js';
import { TicketStatus } from './ticket-status.enum.js';
import { listedTicketFromRow, type TicketRow, type TicketTextRow, ticketFromRow } from './ticket-row.js';

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
