import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Database } from '../database/database.js';
import type { Transaction } from '../database/transaction.js';
import type { AppConfig } from '../config/app-config.js';
import { anonymousWrite, type WriteContext } from '../common/context/write-context.js';
import { isRequester } from '../common/context/viewer.js';
import { canonicalEmail } from '../common/validation/email-address.js';
import { requesterMayNot } from '../people/requester-writes.js';
import { ParticipantsRepository } from '../people/participants.repository.js';
import { CommentsService } from '../comments/comments.service.js';
import { CommentVisibility } from '../comments/comment-visibility.enum.js';
import { IdempotencyService } from '../idempotency/idempotency.service.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import { TagsRepository } from '../tags/tags.repository.js';
import { FieldsService } from '../fields/fields.service.js';
import { FieldValuesRepository } from '../fields/field-values.repository.js';
import type { FieldValues } from '../fields/field-values.js';
import type { TicketResponse } from '../tickets/dto/ticket-response.dto.js';
import { mergeEvent, routingKeyOf, ticketEvent } from '../tickets/events/ticket-event.js';
import { HistoryAction } from '../tickets/history-action.js';
import type { HistoryChange } from '../tickets/history-entry.js';
import { recordLinkChange } from '../tickets/links/link-changes.js';
import { LinksRepository } from '../tickets/links/links.repository.js';
import { mergeNote, participantsAfterUnmerge, participantsGained, type TicketPeople, unmergeable } from '../tickets/merges/merges.js';
import { MergesRepository, type StoredMerge } from '../tickets/merges/merges.repository.js';
import { ticketChanges } from '../tickets/ticket-changes.js';
import { assertIfMatch } from '../tickets/ticket-etag.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { ticketNotFound } from '../tickets/ticket-not-found.js';
import { TicketStatus } from '../tickets/ticket-status.enum.js';
import { TicketWriteHooks } from '../tickets/ticket-write-hooks.js';
import { nextUpdatedAt } from '../tickets/ticket.rules.js';
import { TicketsRepository } from '../tickets/tickets.repository.js';
import type { MergeResponse, UnmergeResponse } from './dto/merge-response.dto.js';

/** What the merge's writes of one ticket need besides the ticket: its tags and values (its events carry them). */
interface TicketParts {
  tags: Map<number, string[]>;
  fields: Map<number, FieldValues>;
}

/**
 * Merging duplicates into one ticket, and undoing it (docs/api.md#merge). A merge is one transaction holding the row
 * locks of the target and every source (taken in id order, as every write of several tickets takes them): each source
 * is closed and linked as a duplicate of the target, the target gains the sources' people and an internal note, and
 * every ticket records its history entry and events in its own order. What the merge changed is kept per source, so
 * that an unmerge restores it.
 */
@Injectable()
export class MergesService {
  private readonly unmergeWindowMs: number;

  constructor(
    private readonly database: Database,
    private readonly tickets: TicketsRepository,
    private readonly merges: MergesRepository,
    private readonly links: LinksRepository,
    private readonly participants: ParticipantsRepository,
    private readonly tags: TagsRepository,
    private readonly fields: FieldsService,
    private readonly fieldValues: FieldValuesRepository,
    private readonly history: TicketHistoryRepository,
    private readonly outbox: OutboxWriter,
    private readonly hooks: TicketWriteHooks,
    private readonly comments: CommentsService,
    private readonly idempotency: IdempotencyService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.unmergeWindowMs = config.get('tickets', { infer: true }).unmergeWindowMs;
  }

  async merge(
    id: string,
    request: { sources: number[]; comment?: string | null },
    ifMatch?: string,
    context: WriteContext = anonymousWrite(),
  ): Promise<MergeResponse> {
    if (context.viewer && isRequester(context.viewer)) throw requesterMayNot("merge tickets: merging is the desk's");
    const targetId = Number(id);
    const sourceIds = [...request.sources].sort((a, b) => a - b);
    if (sourceIds.length === 0) throw new BadRequestException('A merge names at least one source');
    if (sourceIds.includes(targetId)) throw new ConflictException(`Ticket ${targetId} cannot be merged into itself`);
    const definitions = await this.fields.definitions();
    return this.database.transaction(async (transaction) => {
      const locked = await this.lockAll(transaction, [targetId, ...sourceIds]);
      const target = locked.get(targetId)!;
      const sources = sourceIds.map((sourceId) => locked.get(sourceId)!);
      const merged = await this.merges.targetsOf([targetId, ...sourceIds], transaction);
      if (merged.has(targetId)) {
        throw new ConflictException(`Ticket ${targetId} is merged into ticket ${merged.get(targetId)}: merge into that ticket instead`);
      }
      for (const sourceId of sourceIds) {
        if (merged.has(sourceId)) throw new ConflictException(`Ticket ${sourceId} is already merged into ticket ${merged.get(sourceId)}`);
      }
      assertIfMatch(ifMatch, target);
      const links = await this.links.of(sourceIds, transaction);
      const reversed = links.find((link) => link.kind === 'duplicate-of' && link.fromId === targetId && sourceIds.includes(link.toId));
      if (reversed) {
        throw new ConflictException(
          `Ticket ${targetId} is a duplicate of ticket ${reversed.toId}: merge ticket ${targetId} into it instead`,
        );
      }
      const people = await this.peopleOf(transaction, [target, ...sources]);
      const gained = participantsGained(
        people.get(targetId)!,
        sourceIds.map((sourceId) => people.get(sourceId)!),
      );
      const parts = await this.partsOf(transaction, [targetId, ...sourceIds], definitions);
      const now = new Date();
      const record = { history: this.history, outbox: this.outbox, writes: transaction.later };
      const stored: StoredMerge[] = [];
      for (const [i, source] of sources.entries()) {
        let link = links.find((found) => found.kind === 'duplicate-of' && found.fromId === source.id && found.toId === targetId);
        let linkId: number | null = null;
        if (!link) {
          link = await this.links.insert(transaction, {
            fromId: source.id,
            toId: targetId,
            kind: 'duplicate-of',
            createdAt: now,
            createdBy: context.actor,
          });
          linkId = link.id;
          for (const ticketId of [source.id, targetId]) await recordLinkChange(record, link, ticketId, 'LINKED', now, context.actor);
        }
        const closed = {
          ...source,
          status: TicketStatus.CLOSED,
          updatedAt: nextUpdatedAt(source.updatedAt, now),
          resolvedAt: source.resolvedAt ?? now,
        };
        await this.write(transaction, source, closed, now, context, parts, {
          action: HistoryAction.MERGED,
          changes: { ...ticketChanges(source, closed), mergedInto: { from: null, to: targetId } },
        });
        await this.outbox.record(transaction.later, mergeEvent('MERGED', source.id, { targetId, sourceIds }, now), routingKeyOf('MERGED'));
        stored.push({
          sourceId: source.id,
          targetId,
          mergedAt: now,
          mergedBy: context.actor,
          statusBefore: source.status,
          resolvedAtBefore: source.resolvedAt,
          linkId,
          participantsAdded: gained[i],
        });
      }
      await this.merges.insert(transaction, stored);
      const before = people.get(targetId)!.participants;
      const after = [...before, ...gained.flat()];
      if (after.length > before.length) await this.participants.replace(transaction, targetId, before, after);
      const note = await this.comments.record(
        transaction,
        String(targetId),
        { body: mergeNote(sourceIds, request.comment), author: context.actor, visibility: CommentVisibility.INTERNAL },
        now,
        context,
      );
      const updated = { ...target, updatedAt: nextUpdatedAt(target.updatedAt, now) };
      await this.write(transaction, target, updated, now, context, parts, {
        action: HistoryAction.MERGED,
        changes: {
          sources: { from: null, to: sourceIds },
          ...(after.length > before.length && { ccEmails: { from: [...before], to: after } }),
        },
      });
      await this.outbox.record(transaction.later, mergeEvent('MERGED', targetId, { targetId, sourceIds }, now), routingKeyOf('MERGED'));
      const answer: MergeResponse = { targetId, sourceIds, commentId: note.id, mergedAt: now };
      if (context.idempotency) {
        await this.idempotency.finish(transaction, context.idempotency, {
          status: 200,
          body: JSON.stringify(answer),
          location: null,
          etag: null,
        });
      }
      return answer;
    });
  }

  async unmerge(id: string, sourceId: number, context: WriteContext = anonymousWrite()): Promise<UnmergeResponse> {
    if (context.viewer && isRequester(context.viewer)) throw requesterMayNot("unmerge tickets: merging is the desk's");
    const targetId = Number(id);
    const definitions = await this.fields.definitions();
    return this.database.transaction(async (transaction) => {
      const locked = await this.lockAll(transaction, [targetId, sourceId]);
      const [target, source] = [locked.get(targetId)!, locked.get(sourceId)!];
      const merge = await this.merges.find(transaction, sourceId);
      if (merge?.targetId !== targetId) throw new ConflictException(`Ticket ${sourceId} is not merged into ticket ${targetId}`);
      // The target takes no write while merged itself: its own merge is undone first.
      const targetOf = (await this.merges.targetsOf([targetId], transaction)).get(targetId);
      if (targetOf !== undefined) {
        throw new ConflictException(`Ticket ${targetId} is merged into ticket ${targetOf}: unmerge it from ticket ${targetOf} first`);
      }
      const now = new Date();
      if (!unmergeable(merge.mergedAt, now, this.unmergeWindowMs)) {
        throw new ConflictException(
          `Ticket ${sourceId} was merged at ${merge.mergedAt.toISOString()}, longer ago than TICKETS_UNMERGE_WINDOW allows an unmerge`,
        );
      }
      const parts = await this.partsOf(transaction, [targetId, sourceId], definitions);
      const record = { history: this.history, outbox: this.outbox, writes: transaction.later };
      const link = merge.linkId === null ? undefined : await this.links.ofTicket(transaction, sourceId, merge.linkId);
      if (link) {
        await this.links.delete(transaction, link.id);
        for (const ticketId of [sourceId, targetId]) await recordLinkChange(record, link, ticketId, 'UNLINKED', now, context.actor);
      }
      const restored = {
        ...source,
        status: merge.statusBefore as TicketStatus,
        updatedAt: nextUpdatedAt(source.updatedAt, now),
        resolvedAt: merge.resolvedAtBefore,
      };
      await this.write(transaction, source, restored, now, context, parts, {
        action: HistoryAction.UNMERGED,
        changes: { ...ticketChanges(source, restored), mergedInto: { from: targetId, to: null } },
      });
      await this.outbox.record(
        transaction.later,
        mergeEvent('UNMERGED', sourceId, { targetId, sourceIds: [sourceId] }, now),
        routingKeyOf('UNMERGED'),
      );
      await this.merges.delete(transaction, sourceId);
      const others = await this.merges.into(transaction, targetId, sourceId);
      const participants = await this.participants.of([targetId, ...others.map((other) => other.sourceId)], transaction);
      const before = participants.get(targetId) ?? [];
      const stillMerged = others.map((other) => ({ requester: other.requester, participants: participants.get(other.sourceId) ?? [] }));
      const after = participantsAfterUnmerge(before, merge.participantsAdded, stillMerged);
      if (after.participants.length < before.length) await this.participants.replace(transaction, targetId, before, after.participants);
      for (const [i, addresses] of after.handedOver) {
        await this.merges.setParticipantsAdded(transaction, others[i].sourceId, [...others[i].participantsAdded, ...addresses]);
      }
      const updated = { ...target, updatedAt: nextUpdatedAt(target.updatedAt, now) };
      await this.write(transaction, target, updated, now, context, parts, {
        action: HistoryAction.UNMERGED,
        changes: {
          sources: { from: [sourceId], to: null },
          ...(after.participants.length < before.length && { ccEmails: { from: before, to: after.participants } }),
        },
      });
      await this.outbox.record(
        transaction.later,
        mergeEvent('UNMERGED', targetId, { targetId, sourceIds: [sourceId] }, now),
        routingKeyOf('UNMERGED'),
      );
      return { targetId, sourceId, unmergedAt: now };
    });
  }

  /** Locks the tickets' rows in id order and reads them: 404 naming those that do not exist. */
  private async lockAll(transaction: Transaction, ids: number[]): Promise<Map<number, TicketResponse>> {
    const found = new Map((await this.tickets.findAllForUpdate(transaction, ids)).map((ticket) => [ticket.id, ticket]));
    const missing = ids.filter((ticketId) => !found.has(ticketId));
    if (missing.length === 1) throw ticketNotFound(missing[0]);
    if (missing.length > 1) throw new NotFoundException(`Tickets not found with ids: ${missing.join(', ')}`);
    return found;
  }

  /** Each ticket's requester and participants, in canonical form. */
  private async peopleOf(transaction: Transaction, tickets: TicketResponse[]): Promise<Map<number, TicketPeople>> {
    const participants = await this.participants.of(
      tickets.map((ticket) => ticket.id),
      transaction,
    );
    return new Map(
      tickets.map((ticket) => [
        ticket.id,
        {
          requester: canonicalEmail(ticket.requesterEmail) ?? ticket.requesterEmail.toLowerCase(),
          participants: participants.get(ticket.id) ?? [],
        },
      ]),
    );
  }

  private async partsOf(
    transaction: Transaction,
    ids: number[],
    definitions: Awaited<ReturnType<FieldsService['definitions']>>,
  ): Promise<TicketParts> {
    const [tags, fields] = await Promise.all([this.tags.of(ids, transaction), this.fieldValues.of(ids, definitions, transaction)]);
    return { tags, fields };
  }

  /**
   * One ticket's row as the merge leaves it, under its lock: its hooks (a source's SLA clocks pause while it is merged),
   * its history entry, and its UPDATED event, which the v1 binding receives as it does every update.
   */
  private async write(
    transaction: Transaction,
    before: TicketResponse,
    after: TicketResponse,
    now: Date,
    context: WriteContext,
    parts: TicketParts,
    entry: HistoryChange & { action: HistoryAction.MERGED | HistoryAction.UNMERGED },
  ): Promise<void> {
    await this.tickets.update(transaction.later, String(after.id), after);
    if (entry.changes.mergedInto?.to) await this.hooks.ticketMerged(transaction, after, now);
    else if (entry.changes.mergedInto) await this.hooks.ticketUnmerged(transaction, after, now);
    else await this.hooks.ticketUpdated(transaction, before, after, now);
    await this.history.record(transaction.later, { ticketId: after.id, occurredAt: now, actor: context.actor, ...entry });
    const ticketParts = { tags: parts.tags.get(after.id) ?? [], fields: parts.fields.get(after.id) ?? {} };
    await this.outbox.record(transaction.later, ticketEvent('UPDATED', after, ticketParts, now), routingKeyOf('UPDATED'));
  }
}
