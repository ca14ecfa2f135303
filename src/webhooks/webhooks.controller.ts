import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { IdPipe } from '../common/http/id.pipe.js';
import { JsonContentTypeGuard } from '../common/json-content-type.guard.js';
import { parseKeysetPage } from '../common/paging/keyset-page.js';
import { setPageHeaders } from '../common/paging/page-headers.js';
import { QueryParameters } from '../common/paging/query-parameters.js';
import { parseInstant } from '../tickets/query/query-instant.js';
import type { DeliveryPageResponse, DeliveryResponse, ReplayResponse, TestDeliveryResponse } from './dto/delivery-response.dto.js';
import { WebhookPatch } from './dto/webhook-patch.dto.js';
import { WebhookRequest } from './dto/webhook-request.dto.js';
import type { WebhookPageResponse, WebhookResponse, WebhookSecretResponse } from './dto/webhook-response.dto.js';
import { webhooksApi as api } from './webhooks.openapi.js';
import { WebhooksService } from './webhooks.service.js';

const COLLECTION = '/api/v2/webhooks';

/** v2 only: webhook endpoints, their secrets and their deliveries; problem+json errors. */
@Controller('api/v2/webhooks')
@api.controller()
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @api.create()
  @UseGuards(JsonContentTypeGuard)
  async create(@Body() request: WebhookRequest, @Res({ passthrough: true }) response: Response): Promise<WebhookSecretResponse> {
    const created = await this.webhooks.create(request);
    response.setHeader('Location', `${COLLECTION}/${created.id}`);
    return created;
  }

  @Get()
  @api.list()
  async list(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<WebhookPageResponse> {
    const page = await this.webhooks.list(parseKeysetPage(request.query, 'v2', 'webhooks', 'pageQuery'));
    setPageHeaders(response, COLLECTION, request.originalUrl, { ...page, total: null });
    return page;
  }

  @Get(':id')
  @api.get()
  get(@Param('id', IdPipe) id: string): Promise<WebhookResponse> {
    return this.webhooks.findOne(id);
  }

  @Patch(':id')
  @api.update()
  @UseGuards(JsonContentTypeGuard)
  update(@Param('id', IdPipe) id: string, @Body() patch: WebhookPatch): Promise<WebhookResponse> {
    return this.webhooks.update(id, patch);
  }

  @Delete(':id')
  @api.remove()
  @HttpCode(204)
  remove(@Param('id', IdPipe) id: string): Promise<void> {
    return this.webhooks.remove(id);
  }

  @Post(':id/rotate-secret')
  @api.rotate()
  @HttpCode(200)
  rotate(@Param('id', IdPipe) id: string): Promise<WebhookSecretResponse> {
    return this.webhooks.rotateSecret(id);
  }

  @Post(':id/test')
  @api.test()
  @HttpCode(200)
  test(@Param('id', IdPipe) id: string): Promise<TestDeliveryResponse> {
    return this.webhooks.test(id);
  }

  @Get(':id/deliveries')
  @api.deliveries()
  async deliveries(
    @Param('id', IdPipe) id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<DeliveryPageResponse> {
    const page = await this.webhooks.deliveryPage(id, parseKeysetPage(request.query, 'v2', `webhook-deliveries:${id}`, 'pageQuery'));
    setPageHeaders(response, `${COLLECTION}/${id}/deliveries`, request.originalUrl, { ...page, total: null });
    return page;
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @api.redeliver()
  @HttpCode(202)
  redeliver(@Param('id', IdPipe) id: string, @Param('deliveryId', IdPipe) deliveryId: string): Promise<DeliveryResponse> {
    return this.webhooks.redeliver(id, deliveryId);
  }

  @Post(':id/replay')
  @api.replay()
  @HttpCode(202)
  async replay(@Param('id', IdPipe) id: string, @Req() request: Request): Promise<ReplayResponse> {
    const { since, until } = replayWindow(request.query);
    return { replayed: await this.webhooks.replay(id, since, until) };
  }
}

/**
 * `since` (required) and `until` (default now), ISO-8601 instants with a zone, since not later than until; one 400
 * names every problem.
 */
function replayWindow(raw: Record<string, unknown>): { since: Date; until: Date } {
  const params = new QueryParameters(raw, 'v2', ['since', 'until'], 'replayQuery');
  const instant = (name: string, required: boolean): number | undefined => {
    const text = params.single(name);
    if (text === undefined) {
      if (required) params.problem(name, 'NotNull', 'java.time.Instant', `${name} is required`, null);
      return undefined;
    }
    const value = parseInstant(text);
    if (value === undefined) params.problem(name, 'typeMismatch', 'java.time.Instant', 'Not an ISO-8601 instant with a zone', text);
    return value;
  };
  const since = instant('since', true);
  const givenUntil = instant('until', false);
  const until = givenUntil ?? Date.now();
  // [since, until) is empty when they are equal, and no window at all when since comes later: a mistake, not 0.
  if (since !== undefined && since > until) {
    const bound = givenUntil === undefined ? 'now (until is absent)' : 'until';
    params.problem('since', 'Range', 'java.time.Instant', `since must not be later than ${bound}`, params.single('since'));
  }
  if (params.problems.length > 0) throw new ValidationFailedException('replayQuery', params.fieldErrors());
  return { since: new Date(since!), until: new Date(until) };
}
