import {
  BadRequestException,
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UnsupportedMediaTypeException,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import typeIs from 'type-is';
import { assertIdentityEncoding } from '../common/http/content-encoding.js';
import type { Request, Response } from 'express';
import { viewerOf } from '../common/context/viewer.js';
import { writeContext } from '../common/context/write-context.js';
import { IdPipe } from '../common/http/id.pipe.js';
import { JsonContentTypeGuard } from '../common/json-content-type.guard.js';
import { parseKeysetPage } from '../common/paging/keyset-page.js';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor.js';
import { BulkRequest } from './dto/bulk-request.dto.js';
import type { ImportReportResponse, JobResponse, JobResultPageResponse } from './dto/job-response.dto.js';
import { jobsApi } from './jobs.openapi.js';
import { JobsService } from './jobs.service.js';

export const NDJSON = 'application/x-ndjson';

/** Bulk changes and imports of tickets, and the jobs that make them (v2 only). */
@Controller('api/v2')
@jobsApi.controller()
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @Post('tickets/bulk')
  @jobsApi.bulk()
  @HttpCode(202)
  @UseGuards(JsonContentTypeGuard)
  @UseInterceptors(IdempotencyInterceptor)
  async bulk(@Body() request: BulkRequest, @Req() http: Request, @Res({ passthrough: true }) response: Response): Promise<JobResponse> {
    // The body as sent, too: the DTO's whitelist drops keys it does not know, which a bulk change refuses instead.
    const job = await this.jobs.createBulk(request, writeContext(http), http.body as unknown);
    response.setHeader('Location', `/api/v2/jobs/${job.id}`);
    return job;
  }

  /** 202 with the job; a dry run 200 with its report. The body is read as it arrives, never whole. */
  @Post('imports')
  @jobsApi.import()
  async import(
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
    @Query('dryRun') dryRun?: string,
  ): Promise<JobResponse | ImportReportResponse> {
    if (dryRun !== undefined && dryRun !== 'true' && dryRun !== 'false') throw new BadRequestException('dryRun: true or false');
    assertIdentityEncoding(http, 'imports');
    const declared = http.headers['content-type'];
    if (!declared || !typeIs.is(declared, [NDJSON])) {
      throw new UnsupportedMediaTypeException(`Content-Type ${JSON.stringify(declared ?? '(none)')} is not supported; send ${NDJSON}`);
    }
    const answer = await this.jobs.createImport(http, dryRun === 'true', writeContext(http));
    if ('dryRun' in answer) response.status(200);
    else response.status(202).setHeader('Location', `/api/v2/jobs/${answer.id}`);
    return answer;
  }

  @Get('jobs/:jobId')
  @jobsApi.get()
  get(@Param('jobId', IdPipe) id: string, @Req() http: Request): Promise<JobResponse> {
    return this.jobs.find(id, viewerOf(http));
  }

  @Get('jobs/:jobId/results')
  @jobsApi.results()
  results(@Param('jobId', IdPipe) id: string, @Req() http: Request): Promise<JobResultPageResponse> {
    return this.jobs.results(id, parseKeysetPage(http.query, 'v2', `job-results:${id}`, 'pageQuery'), viewerOf(http));
  }

  @Post('jobs/:jobId/cancel')
  @jobsApi.cancel()
  @HttpCode(200)
  cancel(@Param('jobId', IdPipe) id: string, @Req() http: Request): Promise<JobResponse> {
    return this.jobs.cancel(id, viewerOf(http));
  }
}
