import { Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import { Database } from '../../database/database.js';
import { freeOfRequestDeadline } from '../../database/request-deadline.js';
import type { Queryable } from '../../database/statement-batch.js';
import { describeError } from '../../common/errors/describe-error.js';
import { FieldsService } from '../../fields/fields.service.js';
import type { StoredDefinition } from '../../fields/field-definitions.repository.js';
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
/**
 * Exports one replica runs at once: each holds a connection of the pool (and a snapshot the database keeps) while it
 * runs, so more would starve the requests; beyond it a 503 says when to try again.
 */
const EXPORTS_MAX = 3;
/** A client that takes nothing for this long is given up, so that its connection and snapshot are not held forever. */
const STALL_MS = 60_000;

/** The reader went away, or stopped reading: the export's transaction ends. */
class ExportAbandoned extends Error {}

/**
 * Every ticket a list's filters match, streamed (GET /api/v2/tickets/export): read a page at a time in id order inside
 * one read-only transaction started WITH CONSISTENT SNAPSHOT at REPEATABLE READ, so the export is the rows as of its
 * start while writes go on (whatever the server's default isolation). Memory holds one page; a page is read once the
 * reader has taken the one before (backpressure), and the transaction ends when the reader goes away or stalls.
 */
@Injectable()
export class TicketExportService {
  private readonly logger = new Logger(TicketExportService.name);
  private running = 0;

  constructor(
    private readonly database: Database,
    private readonly tickets: TicketsService,
    private readonly repository: TicketsRepository,
    private readonly participants: ParticipantsRepository,
    private readonly tags: TagsRepository,
    private readonly fields: FieldsService,
    private readonly fieldValues: FieldValuesRepository,
  ) {}

  /**
   * Resolves once the first page is read, with the body to send; a failure before it (within the request's time
   * budget) is the request's, as any other: a 4xx, or a 503.
   */
  async export(listed: TicketQuery, format: ExportFormat): Promise<Readable> {
    const query = await this.tickets.checked(listed);
    if (this.running >= EXPORTS_MAX) throw new ServiceUnavailableException(`${EXPORTS_MAX} exports are running; retry in a few seconds`);
    this.running++;
    const body = new PassThrough();
    // Until the body is handed to the response nothing else listens: an error must not go unheard (and end the process).
    body.on('error', () => undefined);
    // CSV's columns are the custom fields as the snapshot has them: its writer is made once they are read.
    let out: Writable | undefined;
    let started = false;
    let onStart!: () => void;
    const first = new Promise<void>((resolve) => (onStart = resolve));
    const done = freeOfRequestDeadline(() =>
      this.database.withWorkerConnection(async (connection) => {
        await connection.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
        try {
          const definitions = await this.fields.definitionsIn(connection);
          const writer: Writable =
            format === 'csv'
              ? stringify({ header: true, columns: csvColumns(definitions), escape_formulas: true, record_delimiter: 'windows', bom: true })
              : body;
          if (writer !== body) {
            writer.on('error', () => undefined);
            writer.pipe(body);
          }
          out = writer;
          for (let afterId = 0; ;) {
            if (body.destroyed || writer.destroyed) throw new ExportAbandoned();
            const page = await this.page(connection, query, afterId, definitions);
            started = true;
            onStart();
            for (const ticket of page) await write(writer, format === 'csv' ? csvRow(ticket, definitions) : `${JSON.stringify(ticket)}\n`);
            if (page.length < PAGE) break;
            afterId = page.at(-1)!.id;
          }
        } finally {
          await connection.query('ROLLBACK').catch(() => undefined);
        }
      }),
    );
    const finished = done.then(
      () => out?.end(),
      (error: unknown) => {
        if (!(error instanceof ExportAbandoned) && started) this.logger.warn(`An export was cut short: ${describeError(error)}`);
        out?.destroy();
        body.destroy();
      },
    );
    void finished.finally(() => this.running--);
    body.once('close', () => {
      if (out && !out.writableFinished) out.destroy();
    });
    const budget = this.database.budgetMs;
    let timer: NodeJS.Timeout | undefined;
    const late =
      budget > 0
        ? new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new ServiceUnavailableException('The database did not answer in time; retry later')), budget);
          })
        : new Promise<never>(() => undefined);
    try {
      await Promise.race([first, done, late]);
    } catch (error) {
      // Nothing was sent: the error is the request's answer, and the export (if it ever starts) writes into nothing.
      body.destroy();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return body;
  }

  private async page(
    connection: Queryable,
    query: TicketQuery,
    afterId: number,
    definitions: StoredDefinition[],
  ): Promise<ExportedTicket[]> {
    const tickets = await this.repository.matchingPage(connection, query, afterId, PAGE);
    const ids = tickets.map((ticket) => ticket.id);
    const participants = await this.participants.of(ids, connection);
    const tags = await this.tags.of(ids, connection);
    const values = await this.fieldValues.of(ids, definitions, connection);
    return tickets.map((ticket) => ({
      ...ticket,
      ccEmails: participants.get(ticket.id) ?? [],
      tags: tags.get(ticket.id) ?? [],
      fields: values.get(ticket.id) ?? {},
    }));
  }
}

/** Writes one item, waiting while the reader is behind; throws ExportAbandoned once it is gone or has stalled. */
async function write(out: Writable, item: unknown): Promise<void> {
  if (out.destroyed) throw new ExportAbandoned();
  if (out.write(item)) return;
  const gone = new AbortController();
  let stalled: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      once(out, 'drain', { signal: gone.signal }),
      once(out, 'close', { signal: gone.signal }).then(() => Promise.reject(new ExportAbandoned())),
      new Promise((_, reject) => (stalled = setTimeout(() => reject(new ExportAbandoned()), STALL_MS))),
    ]);
  } finally {
    // Each wait's own: a million tickets wait for the reader thousands of times, and none may leave a timer behind.
    clearTimeout(stalled);
    gone.abort();
  }
}
