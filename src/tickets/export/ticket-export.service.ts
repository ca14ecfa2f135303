import { Injectable } from '@nestjs/common';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import { Database } from '../../database/database.js';
import { freeOfRequestDeadline } from '../../database/request-deadline.js';
import type { Transaction } from '../../database/transaction.js';
import { FieldsService } from '../../fields/fields.service.js';
import { FieldValuesRepository } from '../../fields/field-values.repository.js';
import { ParticipantsRepository } from '../../people/participants.repository.js';
import { TagsRepository } from '../../tags/tags.repository.js';
import type { TicketQuery } from '../query/ticket-query.js';
import { TicketsRepository } from '../tickets.repository.js';
import { TicketsService } from '../tickets.service.js';
import { csvColumns, csvRow, type ExportedTicket } from './export-columns.js';

export type ExportFormat = 'ndjson' | 'csv';

/** Tickets read at a time: each page is the tickets with their participants, tags and values, four statements. */
const PAGE = 1_000;

/** The reader went away: the export's transaction ends. */
class ExportAbandoned extends Error {}

/**
 * Every ticket a list's filters match, streamed (GET /api/v2/tickets/export): read a page at a time in id order inside
 * one read-only transaction, whose first read fixes the snapshot every later page reads (InnoDB's REPEATABLE READ), so
 * the export is the rows as of its start while writes go on. Memory holds one page; a page is read once the reader has
 * taken the one before (backpressure), and the transaction ends when the reader goes away.
 */
@Injectable()
export class TicketExportService {
  constructor(
    private readonly database: Database,
    private readonly tickets: TicketsService,
    private readonly repository: TicketsRepository,
    private readonly participants: ParticipantsRepository,
    private readonly tags: TagsRepository,
    private readonly fields: FieldsService,
    private readonly fieldValues: FieldValuesRepository,
  ) {}

  /** Resolves once the first page is read (a failure before it is the request's, as any other), with the body to send. */
  async export(listed: TicketQuery, format: ExportFormat): Promise<Readable> {
    const query = await this.tickets.checked(listed);
    const definitions = await this.fields.definitions();
    const body = new PassThrough();
    const out: Writable = format === 'csv' ? stringify({ header: true, columns: csvColumns(definitions), escape_formulas: true }) : body;
    if (out !== body) out.pipe(body);
    let started!: () => void;
    const first = new Promise<void>((resolve) => (started = resolve));
    const done = freeOfRequestDeadline(() =>
      this.database.transaction(
        async (transaction) => {
          let afterId = 0;
          for (;;) {
            const page = await this.page(transaction, query, afterId, definitions);
            started();
            for (const ticket of page) await write(out, format === 'csv' ? csvRow(ticket, definitions) : `${JSON.stringify(ticket)}\n`);
            if (page.length < PAGE) break;
            afterId = page.at(-1)!.id;
          }
        },
        { retryDeadlocks: false },
      ),
    );
    done.then(
      () => out.end(),
      (error: unknown) => {
        if (!(error instanceof ExportAbandoned)) body.destroy(error as Error);
      },
    );
    body.once('close', () => {
      if (!out.writableFinished) out.destroy();
    });
    await Promise.race([first, done]);
    return body;
  }

  private async page(
    transaction: Transaction,
    query: TicketQuery,
    afterId: number,
    definitions: Awaited<ReturnType<FieldsService['definitions']>>,
  ): Promise<ExportedTicket[]> {
    const tickets = await this.repository.matchingPage(transaction, query, afterId, PAGE);
    const ids = tickets.map((ticket) => ticket.id);
    const [participants, tags, values] = await Promise.all([
      this.participants.of(ids, transaction),
      this.tags.of(ids, transaction),
      this.fieldValues.of(ids, definitions, transaction),
    ]);
    return tickets.map((ticket) => ({
      ...ticket,
      ccEmails: participants.get(ticket.id) ?? [],
      tags: tags.get(ticket.id) ?? [],
      fields: values.get(ticket.id) ?? {},
    }));
  }
}

/** Writes one item, waiting while the reader is behind; throws ExportAbandoned once the stream is gone. */
async function write(out: Writable, item: unknown): Promise<void> {
  if (out.destroyed) throw new ExportAbandoned();
  if (out.write(item)) return;
  const gone = new AbortController();
  try {
    await Promise.race([
      once(out, 'drain', { signal: gone.signal }),
      once(out, 'close', { signal: gone.signal }).then(() => Promise.reject(new ExportAbandoned())),
    ]);
  } finally {
    gone.abort();
  }
}
