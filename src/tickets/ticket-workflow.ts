import { ProblemTypeException } from '../common/errors/problem-type.exception.js';
import type { TicketWorkflow } from '../config/tickets-config.js';
import { TicketStatus } from './ticket-status.enum.js';

const { OPEN, IN_PROGRESS, WAITING_ON_CUSTOMER, RESOLVED, CLOSED } = TicketStatus;

/** v2's problem type of a rejected move; v1 says the same in its message. */
export const INVALID_TRANSITION_TYPE = 'urn:problem-type:ticket-service/invalid-transition';

/**
 * The moves of the spec's table (decision 31). "Any state may move to CLOSED" yields to the spec's explicit
 * rule that OPEN to CLOSED is invalid; CLOSED moves nowhere (reopening is from RESOLVED).
 */
const STRICT_MOVES: Record<TicketStatus, readonly TicketStatus[]> = {
  [OPEN]: [IN_PROGRESS],
  [IN_PROGRESS]: [WAITING_ON_CUSTOMER, RESOLVED, CLOSED],
  [WAITING_ON_CUSTOMER]: [IN_PROGRESS, CLOSED],
  [RESOLVED]: [CLOSED, IN_PROGRESS],
  [CLOSED]: [],
};

/** Whether a ticket in `from` may be updated to `to`. Keeping the status is always allowed. */
export function isAllowedMove(workflow: TicketWorkflow, from: TicketStatus, to: TicketStatus): boolean {
  return workflow === 'open' || from === to || STRICT_MOVES[from].includes(to);
}

/** The statuses a ticket in `from` may be updated to, its own included, in the enum's order. */
export function allowedStatuses(workflow: TicketWorkflow, from: TicketStatus): TicketStatus[] {
  return Object.values(TicketStatus).filter((to) => isAllowedMove(workflow, from, to));
}

/** Throws 409 (with the allowed statuses, for v2) unless the workflow allows the move. */
export function assertTransition(workflow: TicketWorkflow, from: TicketStatus, to: TicketStatus): void {
  if (isAllowedMove(workflow, from, to)) return;
  throw new ProblemTypeException(409, `Invalid status transition from ${from} to ${to}`, {
    type: INVALID_TRANSITION_TYPE,
    title: 'Invalid status transition',
    members: { from, to, allowed: allowedStatuses(workflow, from) },
  });
}
