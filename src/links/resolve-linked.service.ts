import { HttpException, Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { assertTicketExists } from '../tickets/ticket-not-found.js';
import { TicketsService } from '../tickets/tickets.service.js';
import { CommentsService } from '../comments/comments.service.js';
import { CommentVisibility } from '../comments/comment-visibility.enum.js';
import type { WriteContext } from '../common/context/write-context.js';
import { isRequester } from '../common/context/viewer.js';
import { requesterMayNot } from '../people/requester-writes.js';
import type { TicketStatus } from '../tickets/ticket-status.enum.js';
import { LinksRepository } from './links.repository.js';
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
      try {
        const before = await this.tickets.findOne(String(ticketId));
        if (before.status === status) {
          results.push({ ticketId, outcome: 'unchanged' });
          continue;
        }
        await this.tickets.patch(String(ticketId), { status }, undefined, each);
        if (comment) await this.comments.add(String(ticketId), { body: comment, visibility: CommentVisibility.PUBLIC }, each);
        results.push({ ticketId, outcome: 'moved' });
      } catch (error) {
        if (!(error instanceof HttpException)) throw error;
        results.push({ ticketId, outcome: 'failed', error: { status: error.getStatus(), detail: error.message } });
      }
    }
    return results;
  }
}
