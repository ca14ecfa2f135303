import { ConflictException, Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Transaction } from '../database/transaction.js';
import { CommentsRepository } from '../comments/comments.repository.js';
import { FieldsService, invalidFields } from '../fields/fields.service.js';
import { FieldValuesRepository } from '../fields/field-values.repository.js';
import { applyFieldValues, type FieldValues } from '../fields/field-values.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import { ParticipantsRepository } from '../people/participants.repository.js';
import { TagsRepository } from '../tags/tags.repository.js';
import type { TicketResponse } from '../tickets/dto/ticket-response.dto.js';
import { importEvent, routingKeyOf } from '../tickets/events/ticket-event.js';
import { HistoryAction } from '../tickets/history-action.js';
import { fieldChanges, ticketChanges } from '../tickets/ticket-changes.js';
import { TicketHistoryRepository } from '../tickets/ticket-history.repository.js';
import { assertNotMerged } from '../tickets/ticket-not-found.js';
import { nextUpdatedAt } from '../tickets/ticket.rules.js';
import { TicketStatus } from '../tickets/ticket-status.enum.js';
import { TicketsRepository } from '../tickets/tickets.repository.js';
import { TicketWriteHooks } from '../tickets/ticket-write-hooks.js';
import { type ImportLine, importTimes } from './import-line.js';
import { ImportsRepository } from './imports.repository.js';

/** What a line did: the ticket it wrote (or found unchanged). */
export interface ImportOutcome {
  ticketId: number;
  action: 'created' | 'updated' | 'unchanged';
}

/**
 * Writes one line of an import (docs/import.md) in a transaction of its own: the ticket its externalId became, created
 * or updated with the line's times, tags, custom field values, participants and the comments it did not have yet, one
 * IMPORTED history entry and one IMPORTED event. Of the write hooks only `ticketImported` runs: no SLA clock starts and
 * no mail goes out, for what is imported happened in another desk. `record` records the outcome in the same
 * transaction (the job's item).
 */
@Injectable()
export class TicketImporter {
  constructor(
    private readonly database: Database,
    private readonly imports: ImportsRepository,
    private readonly tickets: TicketsRepository,
    private readonly comments: CommentsRepository,
    private readonly history: TicketHistoryRepository,
    private readonly outbox: OutboxWriter,
    private readonly tags: TagsRepository,
    private readonly participants: ParticipantsRepository,
    private readonly fields: FieldsService,
    private readonly fieldValues: FieldValuesRepository,
    private readonly hooks: TicketWriteHooks,
  ) {}

  /**
   * Of these lines, those last imported from the very same line (its hash), with the ticket each became: nothing to
   * write. Read in `transaction` under a shared lock, so that each stays so until the caller has recorded it. A line
   * whose ticket was deleted since is not among them (write refuses it).
   */
  async unchanged(transaction: Transaction, lines: readonly ImportLine[]): Promise<Map<string, number>> {
    const known = await this.imports.hashes(
      lines.map((line) => line.externalId),
      transaction,
    );
    return new Map(
      lines.flatMap(({ externalId, hash }): Array<[string, number]> => {
        const last = known.get(externalId);
        return last && last.ticketId !== null && last.hash === hash ? [[externalId, last.ticketId]] : [];
      }),
    );
  }

  write(
    line: ImportLine,
    receivedAt: Date,
    actor: string | null,
    record: (transaction: Transaction, outcome: ImportOutcome) => Promise<void>,
  ): Promise<ImportOutcome> {
    return this.database.transaction(
      async (transaction) => {
        const known = await this.imports.lock(transaction, line.externalId);
        if (known && known.ticketId === null) {
          throw new ConflictException(
            `The ticket imported as ${JSON.stringify(line.externalId)} was deleted here: an import does not bring it back`,
          );
        }
        if (known && known.hash === line.hash) {
          const outcome = { ticketId: known.ticketId!, action: 'unchanged' as const };
          await record(transaction, outcome);
          return outcome;
        }
        const now = new Date();
        // A line without values, creating its ticket, needs no definition (an import requires none).
        const definitions = known || Object.keys(line.fields).length > 0 ? await this.fields.definitionsForWrite(transaction) : [];
        const checked = applyFieldValues(definitions, line.fields, 'import');
        if (!checked.values) throw invalidFields('importLine', checked.problems);
        const times = importTimes(line, receivedAt);
        const given = {
          title: line.title,
          description: line.description,
          status: line.status,
          priority: line.priority,
          requesterEmail: line.requesterEmail,
          assignedTo: line.assignedTo,
        };
        let before: TicketResponse | null = null;
        let ticket: TicketResponse;
        if (known) {
          before = (await this.tickets.findForUpdate(transaction, String(known.ticketId!)))!;
          if (before.status === TicketStatus.CLOSED) await assertNotMerged(transaction, before.id);
          // Its creation is the other desk's and stays; its last update moves forward, as every update's does.
          // Its resolution time, once set, stays (as every write's rule has it: ticket.rules.ts).
          ticket = {
            ...before,
            ...given,
            updatedAt: nextUpdatedAt(before.updatedAt, times.updatedAt),
            resolvedAt: before.resolvedAt ?? times.resolvedAt,
          };
          await this.tickets.update(transaction.later, String(ticket.id), ticket);
          await this.tickets.updateWords(transaction.later, String(ticket.id), before, ticket);
        } else {
          [ticket] = await this.tickets.insertAll(transaction, [{ fields: { ...given, ...times }, now }]);
          await this.tickets.insertWords(transaction.later, [ticket]);
        }
        const id = ticket.id;
        const tagsBefore = before ? ((await this.tags.of([id], transaction)).get(id) ?? []) : [];
        const ccBefore = before ? ((await this.participants.of([id], transaction)).get(id) ?? []) : [];
        const fieldsBefore: FieldValues = before ? ((await this.fieldValues.of([id], definitions, transaction)).get(id) ?? {}) : {};
        if (tagsBefore.join() !== line.tags.join()) await this.tags.change(transaction.later, id, tagsBefore, line.tags);
        if (ccBefore.join() !== line.ccEmails.join()) await this.participants.replace(transaction.later, id, ccBefore, line.ccEmails);
        await this.fieldValues.change(transaction.later, id, definitions, fieldsBefore, checked.values);
        // Comments it brought before stay as they are (an import never deletes); those it did not have are added.
        const keys = known?.commentKeys ?? [];
        const added = line.comments.filter((comment) => !keys.includes(comment.key));
        await this.comments.insertAll(
          transaction.later,
          id,
          added.map(({ author, body, visibility, createdAt }) => ({ author, body, visibility, createdAt: new Date(createdAt) })),
        );
        const commentKeys = [...keys, ...added.map((comment) => comment.key)];
        await this.imports.save(transaction.later, line.externalId, { ticketId: id, hash: line.hash, commentKeys }, !known, now);
        await this.history.record(transaction.later, {
          ticketId: id,
          occurredAt: now,
          actor,
          action: HistoryAction.IMPORTED,
          changes: {
            ...ticketChanges(before, ticket),
            ...(!known && { externalId: { from: null, to: line.externalId } }),
            ...(ccBefore.join() !== line.ccEmails.join() && { ccEmails: { from: ccBefore, to: line.ccEmails } }),
            ...(tagsBefore.join() !== line.tags.join() && { tags: { from: tagsBefore, to: line.tags } }),
            ...fieldChanges(fieldsBefore, checked.values),
            ...(added.length > 0 && { importedComments: { from: keys.length, to: commentKeys.length } }),
          },
        });
        await this.hooks.ticketImported(transaction.later, ticket, now);
        const action = known ? ('updated' as const) : ('created' as const);
        const event = importEvent({ ...ticket, tags: line.tags, fields: checked.values }, { externalId: line.externalId, action }, now);
        await this.outbox.record(transaction.later, event, routingKeyOf('IMPORTED'));
        const outcome = { ticketId: id, action };
        await record(transaction, outcome);
        return outcome;
      },
      { isolation: 'READ COMMITTED' },
    );
  }
}
