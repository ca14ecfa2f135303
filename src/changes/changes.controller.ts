import { Controller, Get, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { ChangeNotifier } from './change-notifier.js';
import { parseChangesQuery } from './changes-query.js';
import { streamChanges, wantsEventStream } from './changes-stream.js';
import { changesApi } from './changes.openapi.js';
import { ChangesService } from './changes.service.js';

/**
 * v2 only: the change feed as JSON pages (with long-poll) or, for `Accept: text/event-stream`, as Server-Sent
 * Events on the same path. Errors are problem+json, before any event is sent.
 */
@Controller('api/v2/changes')
@changesApi.controller()
export class ChangesController {
  private readonly heartbeatMs: number;

  constructor(
    private readonly changes: ChangesService,
    private readonly notifier: ChangeNotifier,
    config: ConfigService<AppConfig, true>,
  ) {
    this.heartbeatMs = config.get('changes', { infer: true }).sseHeartbeatMs;
  }

  @Get()
  @changesApi.read()
  async read(@Req() request: Request, @Res() response: Response): Promise<void> {
    const stream = wantsEventStream(request);
    const lastEventId = stream ? request.header('last-event-id') : undefined;
    const query = parseChangesQuery(request.query, lastEventId);
    if (stream) {
      // The first read checks the position (410 past retention) while an error can still be an HTTP status.
      const { start } = await this.changes.first(query.start, 1);
      return streamChanges(response, this.changes, this.notifier, start, this.heartbeatMs);
    }
    const gone = new AbortController();
    response.on('close', () => gone.abort());
    response.json(await this.changes.page(query, gone.signal));
  }
}
