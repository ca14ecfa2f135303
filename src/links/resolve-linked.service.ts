import { HttpException, Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { freeOfRequestDeadline } from '../database/request-deadline.js';
import { assertTicketExists } from '../tickets/ticket-not-found.js';
import { TicketsService } from '../tickets/tickets.service.js';
import { CommentsService } from '../comments/comments.service.js';
import { CommentVisibility } from '../comments/comment-visibility.enum.js';
import type { WriteContext } from '../common/context/write-context.js';
import { isRequester } from '../common/context/viewer.js';
import { requesterMayNot } from '../people/requester-writes.js';
import type { TicketStatus } from '../tickets/ticket-status.enum.js';
import { LinksRepository } from '../tickets/links/links.repository.js';
import type { ResolvedIncident } from './dto/resolve-linked.dto.js';

/**
 * A problem's incidents moved together (POST /api/v2/tickets/{id}/resolve-linked): every ticket the problem `causes`,
 * each by a PATCH of its status of its own (the workflow, history, events and SLA of any PATCH) and then, when one is
 * given, a public comment; one ticket's refusal leaves the others moved.
 */
@Injectable()
export class ResolveLinkedService {
  constructor(
    private readonly database: Database,
    private readonly links: LinksRepository,
    private readonly tickets: TicketsService,
    private readonly comments: CommentsService,
  ) {}

  async resolve(
    problemId: string,
    status: TicketStatus,
    comment: string | null | undefined,
    context: WriteContext,
  ): Promise<ResolvedIncident[]> {
    if (context.viewer && isRequester(context.viewer)) throw requesterMayNot("resolve a problem's incidents");
    await assertTicketExists(this.database, problemId);
    // Each write is its own: none of them is the request's Idempotency-Key's.
    const each: WriteContext = { actor: context.actor, ...(context.viewer && { viewer: context.viewer }) };
    const results: ResolvedIncident[] = [];
    for (const ticketId of await this.links.caused(Number(problemId))) {
      // Each incident's writes have the budget of a request of their own: a problem of hundreds is not one deadline.
      results.push(await freeOfRequestDeadline(() => this.resolveOne(ticketId, status, comment, each)));
    }
    return results;
  }

  private async resolveOne(
    ticketId: number,
    status: TicketStatus,
    comment: string | null | undefined,
    context: WriteContext,
  ): Promise<ResolvedIncident> {
    try {
      const before = await this.tickets.findOne(String(ticketId));
      if (before.status === status) return { ticketId, outcome: 'unchanged' };
      await this.tickets.patch(String(ticketId), { status }, undefined, context);
    } catch (error) {
      return { ticketId, outcome: 'failed', error: problemOf(error) };
    }
    if (!comment) return { ticketId, outcome: 'moved' };
    try {
      await this.comments.add(String(ticketId), { body: comment, visibility: CommentVisibility.PUBLIC }, context);
      return { ticketId, outcome: 'moved' };
    } catch (error) {
      // Moved all the same: the comment alone is missing, which the answer says.
      return { ticketId, outcome: 'moved', commentError: problemOf(error) };
    }
  }
}

/** An error as problem+json would state it; one not of HTTP (the database failed) is the 503 the request would have had. */
function problemOf(error: unknown): { status: number; detail: string } {
  return error instanceof HttpException
    ? { status: error.getStatus(), detail: error.message }
    : { status: 503, detail: 'The database could not complete this change; retry later' };
}
