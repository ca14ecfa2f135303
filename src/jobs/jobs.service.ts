import { BadRequestException, HttpException, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { isRequester, type Viewer } from '../common/context/viewer.js';
import type { WriteContext } from '../common/context/write-context.js';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { RequestValidationPipe } from '../common/validation/request-validation.pipe.js';
import { IdempotencyService } from '../idempotency/idempotency.service.js';
import { requesterMayNot } from '../people/requester-writes.js';
import { TagsChangeRequest } from '../tags/dto/tags-change-request.dto.js';
import { canonicalTags, TAGS_MAX } from '../tags/tags.js';
import { CommentRequest } from '../comments/dto/comment-request.dto.js';
import { FieldsService, invalidFields } from '../fields/fields.service.js';
import { applyFieldValues } from '../fields/field-values.js';
import { parseTicketQuery } from '../tickets/query/ticket-query.js';
import { TicketsService } from '../tickets/tickets.service.js';
import { filterParameters, type StoredBulkRequest } from './bulk-request.js';
import { BulkTicketPatch, type BulkRequest } from './dto/bulk-request.dto.js';
import type { ImportReportResponse, JobResponse, JobResultPageResponse } from './dto/job-response.dto.js';
import { freeOfRequestDeadline } from '../database/request-deadline.js';
import { bodyLines } from '../imports/ndjson-lines.js';
import { checkLine } from '../imports/line-checker.js';
import { ImportsRepository } from '../imports/imports.repository.js';
import { boundedProblem, problemOf } from './item-problem.js';
import { JobsWorker } from './jobs-worker.js';
import { JobsRepository, type ReceivedLine, type StoredJob } from './jobs.repository.js';
import type { KeysetPageRequest } from '../common/paging/keyset-page.js';
import { encodePosition } from '../common/paging/cursor.js';

const validation = new RequestValidationPipe();

/**
 * The longest line of an import, well below MariaDB's default max_allowed_packet (16 MiB): a line is one statement's
 * value when it is received, and its comments one statement when it is written.
 */
export const IMPORT_LINE_MAX_BYTES = 8 * 1024 * 1024;
/** Lines of an import recorded, or looked up for a dry run, at a time; and the most of their bytes one statement carries. */
const RECEIVE_BATCH = 500;
const RECEIVE_BATCH_BYTES = 4 * 1024 * 1024;
/** Refused lines a dry run lists. */
const REPORTED_ERRORS = 100;
const IMPORTS_PATH = '/api/v2/imports';

/** The keys each part of a bulk change may have: any other is a mistake a change of thousands must not pass over. */
const KNOWN = {
  body: ['ids', 'filter', 'patch', 'comment'],
  patch: ['title', 'description', 'status', 'priority', 'requesterEmail', 'assignedTo', 'ccEmails', 'tags', 'fields'],
  tags: ['add', 'remove'],
  comment: ['body', 'author', 'visibility'],
} as const;

/** 400 naming the first key of `value` (an object) that `part` does not know, as `path.key`; 400 for a value that is no object. */
function assertKnownKeys(value: unknown, part: keyof typeof KNOWN, path: string): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadRequestException(`${path}: an object with ${KNOWN[part].join(', ')}`);
  }
  const unknown = Object.keys(value).find((key) => !(KNOWN[part] as readonly string[]).includes(key));
  if (unknown !== undefined) throw new BadRequestException(`${path}.${unknown}: not a member of ${path} (${KNOWN[part].join(', ')})`);
}

/** A part of the body checked as a body of its own; a failure names its fields under the part's path (`patch.priority`). */
async function checked<T extends object>(value: unknown, metatype: new () => T, path: string): Promise<T> {
  try {
    return (await validation.transform(value, { type: 'body', metatype })) as T;
  } catch (error) {
    if (!(error instanceof ValidationFailedException)) throw error;
    throw new ValidationFailedException(
      'bulkRequest',
      error.fieldErrors.map((fieldError) => ({ ...fieldError, objectName: 'bulkRequest', field: `${path}.${fieldError.field}` })),
    );
  }
}

/**
 * Jobs, as the API asks for and shows them (docs/api.md#bulk-changes, docs/import.md): a bulk change is checked whole
 * when it is asked for (every key known, every value as a PATCH would check it), an import a line at a time as its
 * body arrives; each is then recorded as a queued job that JobsWorker works.
 */
@Injectable()
export class JobsService {
  private readonly sla: boolean;

  constructor(
    private readonly database: Database,
    private readonly jobs: JobsRepository,
    private readonly tickets: TicketsService,
    private readonly fields: FieldsService,
    private readonly idempotency: IdempotencyService,
    private readonly worker: JobsWorker,
    private readonly imports: ImportsRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    this.sla = config.get('sla.enabled', { infer: true });
  }

  /** `sent`: the body as the client sent it, whose keys are checked (the DTO's whitelist has dropped those it does not know). */
  async createBulk(body: BulkRequest, context: WriteContext, sent: unknown = body): Promise<JobResponse> {
    if (context.viewer && isRequester(context.viewer)) throw requesterMayNot("change tickets in bulk: bulk changes are the desk's");
    assertKnownKeys(sent, 'body', 'bulkRequest');
    const request = await this.checkedRequest(body);
    return this.database.transaction(async (transaction) => {
      const job = await this.jobs.insert(transaction, 'bulk', request, context.actor, new Date());
      const answer = responseOf(job);
      if (context.idempotency) {
        await this.idempotency.finish(transaction, context.idempotency, {
          status: 202,
          body: JSON.stringify(answer),
          location: `/api/v2/jobs/${job.id}`,
          etag: null,
        });
      }
      transaction.afterCommit(() => this.worker.wake());
      return answer;
    });
  }

  /**
   * An import (docs/import.md): its NDJSON body read a line at a time, each line checked as it arrives. A dry run counts
   * what the lines would do and names the first refused ones; a real one records each line as an item of a job (a
   * refused line as failed already), a batch at a time, and queues the job once the body has arrived whole (one that
   * stops arriving is dropped). No line is held beyond its batch, but every externalId is, to refuse one that repeats.
   */
  async createImport(body: AsyncIterable<Buffer>, dryRun: boolean, context: WriteContext): Promise<JobResponse | ImportReportResponse> {
    if (context.viewer && isRequester(context.viewer)) throw requesterMayNot("import tickets: imports are the desk's");
    // The body arrives as fast as its client sends it: its statements are bounded each, not by the request's deadline.
    return freeOfRequestDeadline(() => (dryRun ? this.dryRun(body) : this.receive(body, context)));
  }

  /** Each line of the body, checked, with its number; a repeated externalId refused, naming the line it repeats. */
  private async *checkedLines(body: AsyncIterable<Buffer>, now: Date): AsyncGenerator<ReceivedLine & { hash?: string }> {
    const definitions = await this.fields.definitions();
    const seen = new Map<string, number>();
    for await (const line of bodyLines(body, IMPORT_LINE_MAX_BYTES)) {
      const refused = (error: Error, externalId: string | null): ReceivedLine => ({
        position: line.number,
        externalId,
        error: { ...boundedProblem(problemOf(error, IMPORTS_PATH, `Line ${line.number}: `)), line: line.number },
      });
      if ('tooLong' in line) {
        yield refused(new BadRequestException(`longer than ${IMPORT_LINE_MAX_BYTES} bytes`), null);
        continue;
      }
      const checked = await checkLine(line.text, definitions, now);
      if ('error' in checked) {
        yield refused(
          checked.error instanceof HttpException ? checked.error : new BadRequestException(checked.error.message),
          checked.externalId,
        );
        continue;
      }
      const { externalId } = checked.line;
      const first = seen.get(externalId);
      if (first !== undefined) {
        yield refused(new BadRequestException(`externalId ${JSON.stringify(externalId)} repeats line ${first}`), externalId);
        continue;
      }
      seen.set(externalId, line.number);
      yield { position: line.number, externalId, payload: JSON.stringify(checked.line), hash: checked.line.hash };
    }
  }

  private async dryRun(body: AsyncIterable<Buffer>): Promise<ImportReportResponse> {
    const report: ImportReportResponse = { dryRun: true, lines: 0, create: 0, update: 0, unchanged: 0, deleted: 0, invalid: 0, errors: [] };
    let batch: Array<{ externalId: string; hash: string }> = [];
    const count = async () => {
      const known = await this.imports.hashes(batch.map((line) => line.externalId));
      for (const { externalId, hash } of batch) {
        const last = known.get(externalId);
        if (last === undefined) report.create += 1;
        else if (last.ticketId === null) report.deleted += 1;
        else if (last.hash === hash) report.unchanged += 1;
        else report.update += 1;
      }
      batch = [];
    };
    for await (const line of this.checkedLines(body, new Date())) {
      report.lines += 1;
      if (line.error) {
        report.invalid += 1;
        if (report.errors.length < REPORTED_ERRORS)
          report.errors.push({ line: line.position, externalId: line.externalId, error: line.error as Record<string, unknown> });
        continue;
      }
      batch.push({ externalId: line.externalId!, hash: line.hash! });
      if (batch.length >= RECEIVE_BATCH) await count();
    }
    await count();
    if (report.lines === 0) throw new BadRequestException('The import has no line: one ticket per line, as JSON');
    return report;
  }

  private async receive(body: AsyncIterable<Buffer>, context: WriteContext): Promise<JobResponse> {
    const now = new Date();
    const job = await this.database.transaction((transaction) =>
      this.jobs.insert(transaction, 'import', { patch: {} }, context.actor, now, 'receiving'),
    );
    let total = 0;
    let failed = 0;
    try {
      let batch: ReceivedLine[] = [];
      let bytes = 0;
      const record = async () => {
        const lines = batch;
        batch = [];
        bytes = 0;
        await this.database.transaction((transaction) => this.jobs.addLines(transaction, job.id, lines));
      };
      for await (const { hash: _hash, ...line } of this.checkedLines(body, now)) {
        total += 1;
        if (line.error) failed += 1;
        const size = line.payload?.length ?? 1024;
        if (batch.length > 0 && bytes + size > RECEIVE_BATCH_BYTES) await record();
        batch.push(line);
        bytes += size;
        if (batch.length >= RECEIVE_BATCH) await record();
      }
      await record();
      if (total === 0) throw new BadRequestException('The import has no line: one ticket per line, as JSON');
      await this.database.transaction(async (transaction) => {
        await this.jobs.received(transaction, job.id, total, failed);
        transaction.afterCommit(() => this.worker.wake());
      });
    } catch (error) {
      // A body cut short, or none: nothing of it is worked.
      await this.jobs.drop(job.id).catch(() => undefined);
      throw error;
    }
    return responseOf({ ...job, total, failed });
  }

  private async checkedRequest(body: BulkRequest): Promise<StoredBulkRequest> {
    const hasIds = body.ids !== undefined && body.ids !== null;
    const hasFilter = body.filter !== undefined && body.filter !== null;
    if (hasIds === hasFilter) throw new BadRequestException('A bulk change names its tickets by `ids` or by `filter`, one of the two');
    const request: StoredBulkRequest = { patch: {} };
    if (hasIds) {
      if (body.ids!.length === 0) throw new BadRequestException('ids: at least one ticket');
      request.ids = body.ids!;
    } else {
      if (typeof body.filter !== 'object' || Array.isArray(body.filter))
        throw new BadRequestException('filter: an object of the list’s filters');
      if (Object.keys(body.filter!).length === 0)
        throw new BadRequestException('filter: at least one of the list’s filters (every ticket is no filter)');
      if (Object.keys(body.filter!).length > 100) throw new BadRequestException('filter: at most 100 filters');
      request.filter = filterParameters(body.filter!);
      // Checked now as the list checks it; read again, for its matches, when the job starts.
      await this.tickets.checked(parseTicketQuery(request.filter, 'v2', this.sla));
    }
    assertKnownKeys(body.patch, 'patch', 'patch');
    const patch = await checked(body.patch, BulkTicketPatch, 'patch');
    if (patch.tags !== undefined && patch.tags !== null) {
      assertKnownKeys(patch.tags, 'tags', 'patch.tags');
      await checked(patch.tags, TagsChangeRequest, 'patch.tags');
      if ((canonicalTags(patch.tags.add) ?? []).length > TAGS_MAX)
        throw new BadRequestException(`patch.tags.add: at most ${TAGS_MAX} tags`);
    }
    if (patch.fields !== undefined) {
      // Checked now by the definitions as they are: a value refused here would be refused on every ticket.
      const values = applyFieldValues(await this.fields.definitions(), patch.fields, 'patch', {});
      if (!values.values)
        throw invalidFields(
          'bulkRequest',
          values.problems.map((problem) => ({ ...problem, field: `patch.${problem.field}` })),
        );
    }
    request.patch = JSON.parse(JSON.stringify(patch)) as Record<string, unknown>;
    if (body.comment !== undefined && body.comment !== null) {
      assertKnownKeys(body.comment, 'comment', 'comment');
      const comment = await checked(body.comment, CommentRequest, 'comment');
      request.comment = {
        body: comment.body,
        ...(comment.author !== undefined && { author: comment.author }),
        ...(comment.visibility && { visibility: comment.visibility }),
      };
    }
    if (Object.keys(request.patch).length === 0 && !request.comment) {
      throw new BadRequestException('A bulk change changes something: give `patch` fields or a `comment`');
    }
    return request;
  }

  async find(id: string, viewer: Viewer): Promise<JobResponse> {
    return responseOf(await this.found(id, viewer));
  }

  async results(id: string, page: KeysetPageRequest, viewer: Viewer): Promise<JobResultPageResponse> {
    const job = await this.found(id, viewer);
    const limit = page.limit ?? 50;
    const rows = await this.jobs.results(job.id, page.afterId ?? 0, limit);
    const items = rows.slice(0, limit);
    return {
      items: items.map(({ position, ticketId, externalId, action, outcome, error }) =>
        job.kind === 'import' ? { ticketId, line: position, externalId, action, outcome, error } : { ticketId: ticketId!, outcome, error },
      ),
      nextCursor: rows.length > limit ? encodePosition(page.fingerprint, [items.at(-1)!.position]) : null,
    };
  }

  async cancel(id: string, viewer: Viewer): Promise<JobResponse> {
    await this.found(id, viewer);
    return responseOf((await this.jobs.cancel(id))!);
  }

  private async found(id: string, viewer: Viewer): Promise<StoredJob> {
    if (isRequester(viewer)) throw requesterMayNot("read jobs: bulk changes and imports are the desk's");
    const job = await this.jobs.find(id);
    if (!job) throw new NotFoundException(`Job not found with id: ${id}`);
    return job;
  }
}

function responseOf(job: StoredJob): JobResponse {
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    total: job.total,
    done: job.done,
    failed: job.failed,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
    error: job.error as Record<string, unknown> | null,
  };
}
