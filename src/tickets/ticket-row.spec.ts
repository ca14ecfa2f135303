import { TicketPriority } from './ticket-priority.enum.js';
import { TicketStatus } from './ticket-status.enum.js';
import { type TicketRow, ticketFromRow } from './ticket-row.js';

describe('ticketFromRow', () => {
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
