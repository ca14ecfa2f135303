import { mapError } from '../common/errors/error-mapping.js';
import { allowedStatuses, assertTransition, INVALID_TRANSITION_TYPE, isAllowedMove } from './ticket-workflow.js';
import { TicketStatus } from './ticket-status.enum.js';

const STATUSES = Object.values(TicketStatus);
const ALL_PAIRS = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));

/** The spec's table, written out as the pairs it allows (besides keeping the same status). */
const STRICT_TABLE = new Set([
  'OPEN>IN_PROGRESS',
  'IN_PROGRESS>WAITING_ON_CUSTOMER',
  'IN_PROGRESS>RESOLVED',
  'IN_PROGRESS>CLOSED',
  'WAITING_ON_CUSTOMER>IN_PROGRESS',
  'WAITING_ON_CUSTOMER>CLOSED',
  'RESOLVED>CLOSED',
  'RESOLVED>IN_PROGRESS',
]);

describe('ticket workflow', () => {
  it.each(ALL_PAIRS)('open: allows %s -> %s', (from, to) => {
    expect(isAllowedMove('open', from, to)).toBe(true);
  });

  it.each(ALL_PAIRS)('strict: allows %s -> %s exactly when the table has it or the status stays', (from, to) => {
    expect(isAllowedMove('strict', from, to)).toBe(from === to || STRICT_TABLE.has(`${from}>${to}`));
  });

  it('strict: rejects OPEN -> CLOSED, the one state that may not be closed, and lets CLOSED go nowhere', () => {
    expect(isAllowedMove('strict', TicketStatus.OPEN, TicketStatus.CLOSED)).toBe(false);
    expect(allowedStatuses('strict', TicketStatus.CLOSED)).toEqual(['CLOSED']);
  });

  it('lists the allowed statuses in the enum order, the current one included', () => {
    expect(allowedStatuses('strict', TicketStatus.IN_PROGRESS)).toEqual(['IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED']);
    expect(allowedStatuses('strict', TicketStatus.RESOLVED)).toEqual(['IN_PROGRESS', 'RESOLVED', 'CLOSED']);
    expect(allowedStatuses('open', TicketStatus.CLOSED)).toEqual(STATUSES);
  });

  it('answers a rejected move with 409, its message, and the invalid-transition problem naming from, to and allowed', () => {
    expect(() => assertTransition('strict', TicketStatus.OPEN, TicketStatus.IN_PROGRESS)).not.toThrow();
    let rejected: unknown;
    try {
      assertTransition('strict', TicketStatus.OPEN, TicketStatus.CLOSED);
    } catch (error) {
      rejected = error;
    }
    expect(mapError(rejected)).toEqual({
      status: 409,
      message: 'Invalid status transition from OPEN to CLOSED',
      problem: {
        type: INVALID_TRANSITION_TYPE,
        title: 'Invalid status transition',
        members: { from: 'OPEN', to: 'CLOSED', allowed: ['OPEN', 'IN_PROGRESS'] },
      },
    });
  });
});
