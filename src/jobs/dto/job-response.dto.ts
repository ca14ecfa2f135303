import { ApiProperty } from '@nestjs/swagger';
import { JOB_STATUSES, type JobStatus } from '../job-status.js';
import { ProblemDetailResponse } from '../../common/errors/problem-detail-response.dto.js';

/** A job as GET /api/v2/jobs/{id} shows it. */
export class JobResponse {
  @ApiProperty({ example: 31 })
  id: number;

  @ApiProperty({ enum: ['bulk'], example: 'bulk' })
  kind: 'bulk';

  @ApiProperty({ enum: JOB_STATUSES, example: 'running' })
  status: JobStatus;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'How many tickets it works on; null until it has started (a filter is read then)',
    example: 10000,
  })
  total: number | null;

  @ApiProperty({ description: 'Tickets changed', example: 4200 })
  done: number;

  @ApiProperty({ description: 'Tickets whose change was refused (see the results)', example: 3 })
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
  @ApiProperty({ example: 42 })
  ticketId: number;

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
