import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { principalOf } from '../common/context/principal.js';
import { isId } from '../common/http/id.pipe.js';
import { TicketAccessRepository } from '../people/ticket-access.repository.js';
import { setViewer } from '../common/context/viewer.js';
import { ticketNotFound } from './ticket-not-found.js';

/** A route of one ticket or of its sub-resources (comments, history, attachments, SLA, transitions), in v1 and v2. */
const TICKET_ROUTE = /^\/api\/(?:v2\/)?tickets\/:id(?:\/|$)/;

/**
 * For a requester token, before any handler: the request's viewer (their address and organization, read now), and on
 * every route of one ticket, the ticket looked up by the one visibility rule (src/people/visibility.ts). A ticket they
 * may not see answers the 404 of a ticket that does not exist (the same message, in the version's shape, after the
 * same one statement), before a pipe, an interceptor or a handler runs, on every path of it at once. Agents' and
 * anonymous requests pass untouched.
 */
@Injectable()
export class TicketGate implements CanActivate {
  constructor(private readonly access: TicketAccessRepository) {}

  /** Synchronous for the desk's requests, so that they pay for no promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    const email = principalOf(request)?.requesterEmail;
    return email === undefined ? true : this.admitRequester(request, email);
  }

  private async admitRequester(request: Request, email: string): Promise<boolean> {
    const viewer = await this.access.requester(email);
    setViewer(request, viewer);
    const route = (request.route as { path?: unknown } | undefined)?.path;
    const id = request.params.id;
    if (typeof route === 'string' && TICKET_ROUTE.test(route) && typeof id === 'string' && isId(id)) {
      if (!(await this.access.allows(viewer, id, 'read'))) throw ticketNotFound(id);
    }
    return true;
  }
}
