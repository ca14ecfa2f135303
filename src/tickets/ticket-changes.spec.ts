import { TicketPriority } from './ticket-priority.enum.js';
import { TicketStatus } from './ticket-status.enum.js';
import { ticketChanges } from './ticket-changes.js';

type Fields = Parameters<typeof ticketChanges>[1];

const at = (iso: string) => new Date(iso);
const ticket: Fields = {
  title: 'VPN drops',
  description: 'Every hour',
  status: TicketStatus.OPEN,
  priority: TicketPriority.HIGH,
  requesterEmail: 'ann@example.com',
  assignedTo: null,
  createdAt: at('2026-01-01T00:00:00.000Z'),
  updatedAt: at('2026-01-01T00:00:00.000Z'),
  resolvedAt: null,
};

describe('ticketChanges', () => {
  it('lists every set field from null for a create, and leaves out the fields that stay null', () => {
    expect(ticketChanges(null, ticket)).toEqual({
      title: { from: null, to: 'VPN drops' },
      description: { from: null, to: 'Every hour' },
      status: { from: null, to: 'OPEN' },
      priority: { from: null, to: 'HIGH' },
      requesterEmail: { from: null, to: 'ann@example.com' },
      createdAt: { from: null, to: '2026-01-01T00:00:00.000Z' },
      updatedAt: { from: null, to: '2026-01-01T00:00:00.000Z' },
    });
  });

  it('holds only updatedAt for an update that changes nothing else', () => {
    expect(ticketChanges(ticket, { ...ticket, updatedAt: at('2026-01-02T00:00:00.000Z') })).toEqual({
      updatedAt: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' },
    });
  });

  it('includes resolvedAt when the resolving rule sets it, and a cleared assignee as to null', () => {
    const before = { ...ticket, assignedTo: 'desk-2' };
    const after: Fields = {
      ...ticket,
      status: TicketStatus.RESOLVED,
      updatedAt: at('2026-01-02T00:00:00.000Z'),
      resolvedAt: at('2026-01-02T00:00:00.000Z'),
    };
    expect(ticketChanges(before, after)).toEqual({
      status: { from: 'OPEN', to: 'RESOLVED' },
      assignedTo: { from: 'desk-2', to: null },
      updatedAt: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' },
      resolvedAt: { from: null, to: '2026-01-02T00:00:00.000Z' },
    });
  });

  it('treats an empty string as a value distinct from null', () => {
    expect(ticketChanges(ticket, { ...ticket, assignedTo: '' })).toEqual({ assignedTo: { from: null, to: '' } });
  });
});
