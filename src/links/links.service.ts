import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Transaction } from '../database/transaction.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { IdempotencyService } from '../idempotency/idempotency.service.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import { recordLinkChange } from '../tickets/links/link-changes.js';
import { assertTicketExists, ticketNotFound } from '../tickets/ticket-not-found.js';
import { anonymousWrite, type WriteContext } from '../common/context/write-context.js';
import { DESK, isRequester, type Viewer } from '../common/context/viewer.js';
import { requesterMayNot } from '../people/requester-writes.js';
import { HIERARCHIES, type LinkType, type LinkView, pathBetween, seenFrom, type StoredLink, storedAs } from '../tickets/links/links.js';
import { LinksRepository } from '../tickets/links/links.repository.js';

/**
 * Links between tickets (docs/api.md#links): added and removed in one transaction that holds both tickets' row locks,
 * so each ticket's LINKED and UNLINKED entries and events take their place in its own order. The desk's: requesters
 * neither see nor make them.
 */
@Injectable()
export class LinksService {
  constructor(
    private readonly database: Database,
    private readonly links: LinksRepository,
    private readonly history: TicketHistoryRepository,
    private readonly outbox: OutboxWriter,
    private readonly idempotency: IdempotencyService,
  ) {}

  async add(id: string, request: { type: LinkType; ticketId: number }, context: WriteContext = anonymousWrite()): Promise<LinkView> {
    if (context.viewer && isRequester(context.viewer)) throw requesterMayNot("link tickets: links are the desk's");
    const ticketId = Number(id);
    if (request.ticketId === ticketId) throw new BadRequestException(`Ticket ${id} cannot be linked to itself`);
    const wanted = storedAs(ticketId, request.type, request.ticketId);
    return this.database.transaction(async (transaction) => {
      await this.lockBoth(transaction, ticketId, request.ticketId);
      if (HIERARCHIES.includes(wanted.kind)) {
        await this.links.serializeKind(transaction, wanted.kind);
        const path = pathBetween(await this.links.reachable(transaction, wanted.kind, wanted.toId), wanted.toId, wanted.fromId);
        if (path) {
          throw new ConflictException(
            `A ${wanted.kind} link from ${wanted.fromId} to ${wanted.toId} would close the cycle ${[wanted.fromId, ...path].join(' → ')}`,
          );
        }
      }
      if (await this.links.find(transaction, wanted)) {
        throw new ConflictException(`Ticket ${id} is already linked to ${request.ticketId} as ${request.type}`);
      }
      // Two tickets that are each other's duplicate say nothing: one of them is the original.
      if (
        wanted.kind === 'duplicate-of' &&
        (await this.links.find(transaction, { fromId: wanted.toId, toId: wanted.fromId, kind: wanted.kind }))
      ) {
        throw new ConflictException(`Ticket ${wanted.toId} is already a duplicate of ${wanted.fromId}`);
      }
      const now = new Date();
      const link = await this.links.insert(transaction, { ...wanted, createdAt: now, createdBy: context.actor });
      await this.recordBoth(transaction, link, 'LINKED', now, context.actor);
      const view = seenFrom(link, ticketId);
      await this.idempotency.finishCreated(transaction, context.idempotency, view, null);
      return view;
    });
  }

  async remove(id: string, linkId: number, context: WriteContext = anonymousWrite()): Promise<void> {
    if (context.viewer && isRequester(context.viewer)) throw requesterMayNot("unlink tickets: links are the desk's");
    const ticketId = Number(id);
    const found = await this.links.ofTicket(this.database, ticketId, linkId);
    if (!found) {
      await assertTicketExists(this.database, id);
      throw linkNotFound(id, linkId);
    }
    await this.database.transaction(async (transaction) => {
      await this.lockBoth(transaction, found.fromId, found.toId);
      // Read again under the locks: a concurrent delete of the same link has nothing left to record.
      const link = await this.links.ofTicket(transaction, ticketId, linkId);
      if (!link) throw linkNotFound(id, linkId);
      await this.links.delete(transaction, link.id);
      await this.recordBoth(transaction, link, 'UNLINKED', new Date(), context.actor);
    });
  }

  /** One of the ticket's links, as it sees it. */
  async findOne(id: string, linkId: number, viewer: Viewer = DESK): Promise<LinkView> {
    if (isRequester(viewer)) throw requesterMayNot("read a ticket's links: they are the desk's");
    const link = await this.links.ofTicket(this.database, Number(id), linkId);
    if (link) return seenFrom(link, Number(id));
    await assertTicketExists(this.database, id);
    throw linkNotFound(id, linkId);
  }

  /** The ticket's links, oldest first, each as it sees them. */
  async list(id: string, viewer: Viewer = DESK): Promise<{ items: LinkView[] }> {
    if (isRequester(viewer)) throw requesterMayNot("read a ticket's links: they are the desk's");
    await assertTicketExists(this.database, id);
    const ticketId = Number(id);
    return { items: (await this.links.of([ticketId])).map((link) => seenFrom(link, ticketId)) };
  }

  private async lockBoth(transaction: Transaction, ticketId: number, otherId: number): Promise<void> {
    const found = await this.links.lockTickets(transaction, [ticketId, otherId]);
    if (!found.has(ticketId)) throw ticketNotFound(ticketId);
    if (!found.has(otherId)) throw new NotFoundException(`Ticket not found with id: ${otherId}`);
  }

  /** Each ticket's history entry and event, the link as that ticket sees it. */
  private async recordBoth(transaction: Transaction, link: StoredLink, eventType: 'LINKED' | 'UNLINKED', now: Date, actor: string | null) {
    const record = { history: this.history, outbox: this.outbox, writes: transaction.later };
    for (const ticketId of [link.fromId, link.toId]) await recordLinkChange(record, link, ticketId, eventType, now, actor);
  }
}

function linkNotFound(id: string, linkId: number): NotFoundException {
  return new NotFoundException(`Ticket ${id} has no link with id ${linkId}`);
}
