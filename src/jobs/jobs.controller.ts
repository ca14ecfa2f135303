import { Body, Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import { viewerOf } from '../common/context/viewer.js';
import { writeContext } from '../common/context/write-context.js';
import { IdPipe } from '../common/http/id.pipe.js';
import { JsonContentTypeGuard } from '../common/json-content-type.guard.js';
import { parseKeysetPage } from '../common/paging/keyset-page.js';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor.js';
import { BulkRequest } from './dto/bulk-request.dto.js';
import type { JobResponse, JobResultPageResponse } from './dto/job-response.dto.js';
import { jobsApi } from './jobs.openapi.js';
import { JobsService } from './jobs.service.js';

/** Bulk changes of tickets and the jobs that make them (v2 only). */
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
