import { ForbiddenException } from '@nestjs/common';
import { canonicalEmail } from '../common/validation/email-address.js';
import type { RequesterViewer } from '../common/context/viewer.js';

/*
 * What a requester may write, as pure rules (which tickets they may write to is the visibility rule's, visibility.ts):
 * a ticket in their own name, public comments, and their own ticket's status to RESOLVED or CLOSED, or from RESOLVED
 * back to IN_PROGRESS. Anything else is 403 in the version's shape.
 */

/** The statuses a requester may move their ticket to, from any status the workflow allows. */
const REQUESTER_TARGETS: ReadonlySet<string> = new Set(['RESOLVED', 'CLOSED']);

/** A requester opens a ticket in their own name, OPEN and unassigned (its priority is theirs to say). */
export function assertRequesterCreate(
  viewer: RequesterViewer,
  request: { requesterEmail: string; status: string; assignedTo?: string | null },
): void {
  if (canonicalEmail(request.requesterEmail) !== viewer.email) {
    throw new ForbiddenException('A requester opens tickets in their own name: requesterEmail must be the address of their token');
  }
  if (request.status !== 'OPEN' || (request.assignedTo ?? null) !== null) {
    throw new ForbiddenException('A requester opens tickets as OPEN and unassigned: the desk assigns and moves them');
  }
}

export function assertPublicComment(visibility: string): void {
  if (visibility !== 'PUBLIC') throw new ForbiddenException('A requester writes public comments only');
}

/** `patch` holds the fields given; `from` is the ticket's status before it. */
export function assertRequesterPatch(patch: object, from: string): void {
  const others = Object.entries(patch).filter(([field, value]) => field !== 'status' && value !== undefined);
  const to = (patch as { status?: unknown }).status;
  if (others.length > 0 || typeof to !== 'string') {
    throw new ForbiddenException('A requester may change only the status of their own ticket');
  }
  if (!REQUESTER_TARGETS.has(to) && !(from === 'RESOLVED' && to === 'IN_PROGRESS')) {
    throw new ForbiddenException(
      `A requester may resolve or close their ticket, or reopen a resolved one; not move it from ${from} to ${to}`,
    );
  }
}

export function requesterMayNot(what: string): ForbiddenException {
  return new ForbiddenException(`A requester may not ${what}`);
}
