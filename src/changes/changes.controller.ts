import { Controller, Get, Req, Res } from '@nestjs/common';
import { viewerOf } from '../common/context/viewer.js';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { tokenAcceptedUntil } from '../security/token-lifetime.js';
import { ChangeNotifier } from './change-notifier.js';
import { parseChangesQuery } from './changes-query.js';
import { streamChanges, streamEnd, wantsEventStream } from './changes-stream.js';
import { changesApi } from './changes.openapi.js';
import { ChangesService } from './changes.service.js';
import { type StreamSlot, StreamSlots, TooManyStreamsException } from './stream-slots.js';

/**
 * v2 only: the change feed as JSON pages (with long-poll) or, for `Accept: text/event-stream`, as Server-Sent
 * Events on the same path. Errors are problem+json, before any event is sent. A stream or long-poll ends when its
 * token is no longer accepted, and a stream after CHANGES_STREAM_MAX_SECONDS at the latest; each holds one of its
 * client's CHANGES_STREAMS_PER_CLIENT slots while it lasts.
 */
@Controller('api/v2/changes')
@changesApi.controller()
export class ChangesController {
  private readonly heartbeatMs: number;
  private readonly streamMaxSeconds: number;

  constructor(
    private readonly changes: ChangesService,
    private readonly notifier: ChangeNotifier,
    private readonly slots: StreamSlots,
    config: ConfigService<AppConfig, true>,
  ) {
    const settings = config.get('changes', { infer: true });
    this.heartbeatMs = settings.sseHeartbeatMs;
    this.streamMaxSeconds = settings.streamMaxSeconds;
  }

  @Get()
  @changesApi.read()
  async read(@Req() request: Request, @Res() response: Response): Promise<void> {
    const stream = wantsEventStream(request);
    const lastEventId = stream ? request.header('last-event-id') : undefined;
    const query = parseChangesQuery(request.query, lastEventId);
    const startedAt = Date.now();
    const end = streamEnd(startedAt, this.streamMaxSeconds, tokenAcceptedUntil(request));
    if (!stream && query.waitSeconds === 0) {
      response.json(await this.changes.page(query, undefined, Infinity, viewerOf(request)));
      return;
    }
    const slot = this.take(request, response, stream ? end.at : Math.min(end.at, startedAt + query.waitSeconds * 1000));
    try {
      if (stream) {
        // The first read checks the position (410 past retention) while an error can still be an HTTP status.
        const { start } = await this.changes.first(query.start, 1, viewerOf(request));
        return await streamChanges(response, this.changes, this.notifier, start, this.heartbeatMs, end, viewerOf(request));
      }
      const gone = new AbortController();
      response.on('close', () => gone.abort());
      response.json(await this.changes.page(query, gone.signal, end.at, viewerOf(request)));
    } finally {
      slot.release();
    }
  }

  private take(request: Request, response: Response, endsAt: number): StreamSlot {
    try {
      return this.slots.take(request, endsAt);
    } catch (error) {
      if (error instanceof TooManyStreamsException) response.setHeader('Retry-After', String(error.retryAfterSeconds));
      throw error;
    }
  }
}
