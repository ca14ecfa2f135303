import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { JOB_STATUSES, type JobStatus } from '../job-status.js';
import { ProblemDetailResponse } from '../../common/errors/problem-detail-response.dto.js';

/** A job as GET /api/v2/jobs/{id} shows it. */
export class JobResponse {
  @ApiProperty({ example: 31 })
  id: number;

  @ApiProperty({ enum: ['bulk', 'import'], example: 'bulk' })
  kind: 'bulk' | 'import';

  @ApiProperty({ enum: JOB_STATUSES, example: 'running' })
  status: JobStatus;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: "How many tickets (an import's: lines) it works on; null until a bulk change has started (a filter is read then)",
    example: 10000,
  })
  total: number | null;

  @ApiProperty({ description: "Tickets changed (an import's: lines written or found unchanged)", example: 4200 })
  done: number;

  @ApiProperty({ description: "Tickets whose change was refused (an import's: lines refused), see the results", example: 3 })
  failed: number;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  finishedAt: Date | null;

  @ApiProperty({
    type: ProblemDetailResponse,
    nullable: true,
    description: 'Why the job failed as a whole (its filter refused when it started), as problem+json says it; null otherwise',
  })
  error: Record<string, unknown> | null;
}

export class JobResultResponse {
  @ApiProperty({ type: Number, nullable: true, example: 42, description: "The ticket; an import's line refused before it wrote one: null" })
  ticketId: number | null;

  @ApiPropertyOptional({ description: "An import's: the line's number in the body (from 1)", example: 7 })
  line?: number;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: "An import's: the line's externalId (null if it had none)",
    example: 'zd-4711',
  })
  externalId?: string | null;

  @ApiPropertyOptional({
    enum: ['created', 'updated', 'unchanged'],
    nullable: true,
    description: "An import's line that succeeded: whether it created its ticket, updated it, or found it as the line says",
  })
  action?: 'created' | 'updated' | 'unchanged' | null;

  @ApiProperty({ enum: ['succeeded', 'failed'] })
  outcome: 'succeeded' | 'failed';

  @ApiProperty({
    type: ProblemDetailResponse,
    nullable: true,
    description: 'Why it failed, as the PATCH (or comment) would have answered it in problem+json; null when it succeeded',
  })
  error: Record<string, unknown> | null;
}

export class JobResultPageResponse {
  @ApiProperty({ type: [JobResultResponse], description: 'In the order the tickets were worked' })
  items: JobResultResponse[];

  @ApiProperty({ type: String, nullable: true })
  nextCursor: string | null;
}

/** A refused line of an import, as a dry run reports it: the line, its externalId, and why (problem+json). */
export class ImportLineErrorResponse {
  @ApiProperty({ example: 7 })
  line: number;

  @ApiProperty({ type: String, nullable: true, example: 'zd-4711' })
  externalId: string | null;

  @ApiProperty({ type: ProblemDetailResponse })
  error: Record<string, unknown>;
}

/** What an import would do (POST /api/v2/imports?dryRun=true): nothing is written. */
export class ImportReportResponse {
  @ApiProperty({ example: true })
  dryRun: true;

  @ApiProperty({ description: 'Lines with a ticket (blank lines are not counted)', example: 10000 })
  lines: number;

  @ApiProperty({ description: 'Lines that would create a ticket', example: 9990 })
  create: number;

  @ApiProperty({ description: 'Lines that would update the ticket their externalId became', example: 4 })
  update: number;

  @ApiProperty({ description: 'Lines as they were last imported: nothing to do', example: 3 })
  unchanged: number;

  @ApiProperty({ description: 'Lines whose ticket was deleted here since it was imported: they would be refused', example: 0 })
  deleted: number;

  @ApiProperty({ description: 'Lines refused', example: 3 })
  invalid: number;

  @ApiProperty({ type: [ImportLineErrorResponse], description: 'The first 100 refused lines, in order' })
  errors: ImportLineErrorResponse[];
}
