import type { TicketRequest } from './dto/ticket-request.dto.js';
import { TicketPriority } from './ticket-priority.enum.js';
import { TicketStatus } from './ticket-status.enum.js';
import { newTicket, nextUpdatedAt, patchTicket, replaceTicket, type TicketState } from './ticket.rules.js';

const T0 = new Date('2026-01-01T10:00:00.000Z');
const T1 = new Date('2026-01-01T11:00:00.000Z');
const T2 = new Date('2026-01-01T12:00:00.000Z');

function request(status: TicketStatus, overrides: Partial<TicketRequest> = {}): TicketRequest {
  return { title: 't', description: 'd', status, priority: TicketPriority.LOW, requesterEmail: 'a@b.c', ...overrides };
}

function stored(overrides: Partial<TicketState & { id: string }> = {}): TicketState & { id: string } {
  return { id: '1', ...newTicket(request(TicketStatus.OPEN), T0), ...overrides };
}

describe('ticket rules', () => {
  it('creates with both timestamps at now and resolvedAt null, even when created RESOLVED', () => {
    const ticket = newTicket(request(TicketStatus.RESOLVED), T0);
    expect(ticket).toMatchObject({ createdAt: T0, updatedAt: T0, resolvedAt: null, assignedTo: null });
  });

  it('keeps an empty assignedTo as an empty string', () => {
    expect(newTicket(request(TicketStatus.OPEN, { assignedTo: '' }), T0).assignedTo).toBe('');
  });

  it.each([TicketStatus.RESOLVED, TicketStatus.CLOSED])('sets resolvedAt when an update moves to %s', (status) => {
    expect(replaceTicket(stored(), request(status), T1).resolvedAt).toEqual(T1);
  });

  it.each([TicketStatus.OPEN, TicketStatus.IN_PROGRESS, TicketStatus.WAITING_ON_CUSTOMER])(
    'leaves resolvedAt null when an update moves to %s',
    (status) => {
      expect(replaceTicket(stored(), request(status), T1).resolvedAt).toBeNull();
    },
  );

  it('never overwrites resolvedAt once set, not by CLOSED later nor by reopening', () => {
    const resolved = replaceTicket(stored(), request(TicketStatus.RESOLVED), T1);
    expect(replaceTicket(resolved, request(TicketStatus.CLOSED), T2).resolvedAt).toEqual(T1);
    expect(replaceTicket(resolved, request(TicketStatus.IN_PROGRESS), T2).resolvedAt).toEqual(T1);
  });

  it('replaces every client field and keeps id and createdAt', () => {
    const replaced = replaceTicket(stored({ assignedTo: 'x' }), request(TicketStatus.OPEN, { title: 'new' }), T1);
    expect(replaced).toMatchObject({ id: '1', createdAt: T0, title: 'new', assignedTo: null, updatedAt: T1 });
  });

  it('moves updatedAt forward even when the clock has not', () => {
    expect(nextUpdatedAt(T1, T1).getTime()).toBe(T1.getTime() + 1);
    expect(nextUpdatedAt(T1, T0).getTime()).toBe(T1.getTime() + 1);
    expect(nextUpdatedAt(T0, T1)).toBe(T1);
  });

  describe('merge patch', () => {
    it('replaces the fields present and keeps the fields absent', () => {
      const current = stored({ assignedTo: 'desk-1' });
      const patched = patchTicket(current, { priority: TicketPriority.CRITICAL }, T1);
      expect(patched).toEqual({ ...current, priority: TicketPriority.CRITICAL, updatedAt: T1 });
    });

    it('clears assignedTo with null', () => {
      expect(patchTicket(stored({ assignedTo: 'desk-1' }), { assignedTo: null }, T1).assignedTo).toBeNull();
    });

    it('applies the update rules: resolvedAt set once, updatedAt advanced even by an empty patch', () => {
      const resolved = patchTicket(stored(), { status: TicketStatus.RESOLVED }, T1);
      expect(resolved).toMatchObject({ resolvedAt: T1, updatedAt: T1 });
      expect(patchTicket(resolved, {}, T2)).toMatchObject({ resolvedAt: T1, updatedAt: T2, status: TicketStatus.RESOLVED });
    });
  });
});
