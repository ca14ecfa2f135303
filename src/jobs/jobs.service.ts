import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { isRequester, type Viewer } from '../common/context/viewer.js';
import type { WriteContext } from '../common/context/write-context.js';
import { RequestValidationPipe } from '../common/validation/request-validation.pipe.js';
import { IdempotencyService } from '../idempotency/idempotency.service.js';
import { requesterMayNot } from '../people/requester-writes.js';
import { TagsChangeRequest } from '../tags/dto/tags-change-request.dto.js';
import { CommentRequest } from '../comments/dto/comment-request.dto.js';
import { parseTicketQuery } from '../tickets/query/ticket-query.js';
import { TicketsService } from '../tickets/tickets.service.js';
import { filterParameters, type StoredBulkRequest } from './bulk-request.js';
import { BulkTicketPatch, type BulkRequest } from './dto/bulk-request.dto.js';
import type { JobResponse, JobResultPageResponse } from './dto/job-response.dto.js';
import { BulkWorker } from './bulk-worker.js';
import { JobsRepository, type StoredJob } from './jobs.repository.js';
import type { KeysetPageRequest } from '../common/paging/keyset-page.js';
import { encodePosition } from '../common/paging/cursor.js';

const validation = new RequestValidationPipe();

/** A part of the body checked as a body of its own (its own object name in a 400). */
async function checked<T extends object>(value: unknown, metatype: new () => T): Promise<T> {
  return (await validation.transform(value, { type: 'body', metatype })) as T;
}

/**
 * Jobs, as the API asks for and shows them (docs/api.md#bulk-changes): a bulk change is checked whole when it is asked
 * for, then recorded as a queued job that BulkWorker works in the background.
 */
@Injectable()
export class JobsService {
  private readonly sla: boolean;

  constructor(
    private readonly database: Database,
    private readonly jobs: JobsRepository,
    private readonly tickets: TicketsService,
    private readonly idempotency: IdempotencyService,
    private readonly worker: BulkWorker,
    config: ConfigService<AppConfig, true>,
  ) {
    this.sla = config.get('sla.enabled', { infer: true });
  }

  async createBulk(body: BulkRequest, context: WriteContext): Promise<JobResponse> {
    if (context.viewer && isRequester(context.viewer)) throw requesterMayNot("change tickets in bulk: bulk changes are the desk's");
    const hasIds = body.ids !== undefined && body.ids !== null;
    const hasFilter = body.filter !== undefined && body.filter !== null;
    if (hasIds === hasFilter) throw new BadRequestException('A bulk change names its tickets by `ids` or by `filter`, one of the two');
    if (hasIds && body.ids!.length === 0) throw new BadRequestException('ids: at least one ticket');
    const request: StoredBulkRequest = { patch: {} };
    if (hasIds) request.ids = body.ids!;
    else {
      if (typeof body.filter !== 'object' || Array.isArray(body.filter))
        throw new BadRequestException('filter: an object of the list’s filters');
      request.filter = filterParameters(body.filter!);
      // Checked now as the list checks it; read again, for its matches, when the job starts.
      await this.tickets.matchingIds(parseTicketQuery(request.filter, 'v2', this.sla));
    }
    if (typeof body.patch !== 'object' || body.patch === null || Array.isArray(body.patch)) {
      throw new BadRequestException('patch: an object, the merge patch each ticket gets');
    }
    const patch = await checked(body.patch, BulkTicketPatch);
    if (patch.tags !== undefined && patch.tags !== null) await checked(patch.tags, TagsChangeRequest);
    request.patch = JSON.parse(JSON.stringify(patch)) as Record<string, unknown>;
    if (body.comment !== undefined && body.comment !== null) {
      const comment = await checked(body.comment, CommentRequest);
      if (comment.attachmentIds?.length) throw new BadRequestException('comment.attachmentIds: a bulk comment names no attachment');
      request.comment = { body: comment.body, ...(comment.visibility && { visibility: comment.visibility }) };
    }
    if (Object.keys(request.patch).length === 0 && !request.comment)
      throw new BadRequestException('A bulk change changes something: give `patch` fields or a `comment`');
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

  async find(id: string, viewer: Viewer): Promise<JobResponse> {
    return responseOf(await this.found(id, viewer));
  }

  async results(id: string, page: KeysetPageRequest, viewer: Viewer): Promise<JobResultPageResponse> {
    const job = await this.found(id, viewer);
    const limit = page.limit ?? 50;
    const rows = await this.jobs.results(job.id, page.afterId ?? 0, limit);
    const items = rows.slice(0, limit);
    return {
      items: items.map(({ ticketId, outcome, error }) => ({ ticketId, outcome, error })),
      nextCursor: rows.length > limit ? encodePosition(page.fingerprint, [items.at(-1)!.position]) : null,
    };
  }

  async cancel(id: string, viewer: Viewer): Promise<JobResponse> {
    await this.found(id, viewer);
    return responseOf((await this.jobs.cancel(id))!);
  }

  private async found(id: string, viewer: Viewer): Promise<StoredJob> {
    if (isRequester(viewer)) throw requesterMayNot("read jobs: bulk changes are the desk's");
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
  };
}
