import { applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponse } from '../common/errors/api-error-response.decorator.js';
import { versionedOperationId } from '../docs/operation-ids.js';
import { ImportReportResponse, JobResponse, JobResultPageResponse } from './dto/job-response.dto.js';

const unavailable = () => ApiProblemResponse(503, 'The database cannot be reached right now; retry later');
const requester = () => ApiProblemResponse(403, "A requester token: bulk changes and imports are the desk's");
const job = () => ApiParam({ name: 'jobId', schema: { type: 'integer', minimum: 1 } });

/** The OpenAPI description of bulk changes and their jobs (docs/api.md#bulk-changes). */
export const jobsApi = {
  controller: () => ApiTags('jobs v2'),
  bulk: () =>
    applyDecorators(
      ApiOperation({
        operationId: versionedOperationId('v2', 'bulkChangeTickets'),
        summary: 'Change many tickets, as a job',
        description:
          'Checked whole now, worked in the background: each ticket by a PATCH of its own (its own transaction, the workflow, ' +
          'history, events, SLA, webhooks and notifications of any PATCH), then the comment if one is given. A filter is read ' +
          'for its matches when the job starts. No limit on the number of tickets. Honours Idempotency-Key.',
      }),
      ApiAcceptedResponse({ description: 'The job, queued; Location names it', type: JobResponse }),
      ApiProblemResponse(400, 'The body is malformed: neither or both of ids and filter, a bad filter, patch or comment'),
      requester(),
      unavailable(),
    ),
  import: () =>
    applyDecorators(
      ApiOperation({
        operationId: versionedOperationId('v2', 'importTickets'),
        summary: 'Import tickets from another desk, as a job (docs/import.md)',
        description:
          'An NDJSON body, one ticket per line with its externalId, times, tags, custom field values and comments, read as it ' +
          'arrives. Each line is checked as a v2 create is; a refused line is a failed result of the job, the others are ' +
          'written in the background, each in its own transaction, creating the ticket its externalId names or updating it. ' +
          'An imported ticket keeps its times, starts no SLA clock, sends no mail, and publishes IMPORTED on ticket.imported.',
      }),
      ApiQuery({
        name: 'dryRun',
        required: false,
        schema: { type: 'boolean', default: false },
        description: 'Check and count only: nothing is written',
      }),
      ApiConsumes('application/x-ndjson'),
      ApiBody({ description: 'One ticket per line, as JSON (docs/import.md)', schema: { type: 'string' } }),
      ApiAcceptedResponse({ description: 'The job, queued; Location names it', type: JobResponse }),
      ApiOkResponse({ description: 'A dry run: what the import would do', type: ImportReportResponse }),
      ApiProblemResponse(400, 'No line at all, or dryRun not true or false'),
      ApiProblemResponse(415, 'The body is not application/x-ndjson'),
      ApiProblemResponse(403, "A requester token: imports are the desk's"),
      unavailable(),
    ),
  get: () =>
    applyDecorators(
      ApiOperation({ operationId: versionedOperationId('v2', 'getJob'), summary: 'A job: its status and counts' }),
      job(),
      ApiOkResponse({ type: JobResponse }),
      requester(),
      ApiProblemResponse(404, 'No such job (or one past JOBS_RETENTION)'),
      unavailable(),
    ),
  results: () =>
    applyDecorators(
      ApiOperation({
        operationId: versionedOperationId('v2', 'listJobResults'),
        summary: "What became of each of a job's tickets, in the order they were worked",
      }),
      job(),
      ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } }),
      ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' } }),
      ApiOkResponse({ type: JobResultPageResponse }),
      requester(),
      ApiProblemResponse(404, 'No such job'),
      unavailable(),
    ),
  cancel: () =>
    applyDecorators(
      ApiOperation({
        operationId: versionedOperationId('v2', 'cancelJob'),
        summary: 'Stop a job',
        description: 'A queued job is cancelled at once; a running one stops within the next few tickets (those changed stay changed).',
      }),
      job(),
      ApiOkResponse({ description: 'The job as it is now', type: JobResponse }),
      requester(),
      ApiProblemResponse(404, 'No such job'),
      unavailable(),
    ),
};
