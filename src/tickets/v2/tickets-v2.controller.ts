import { isRequester, type Viewer, viewerOf } from '../../common/context/viewer.js';
import { requesterMayNot } from '../../people/requester-writes.js';
import { canonicalCcEmails } from '../../people/cc-emails.js';
import { ParticipantsRepository } from '../../people/participants.repository.js';
import { TagsRepository } from '../../tags/tags.repository.js';
import { FieldsService } from '../../fields/fields.service.js';
import { FieldValuesRepository } from '../../fields/field-values.repository.js';
import { LinksRepository } from '../links/links.repository.js';
import { linkCounts } from '../links/links.js';
import { MergesRepository } from '../merges/merges.repository.js';
import { TicketStatus } from '../ticket-status.enum.js';
import { canonicalTags } from '../../tags/tags.js';
import { TagsChangeRequest } from '../../tags/dto/tags-change-request.dto.js';
import { TicketV2Patch, TicketV2Request } from '../dto/ticket-v2-request.dto.js';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Patch,
  Post,
  Put,
  Req,
  Res,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../../config/app-config.js';
import type { Request, Response } from 'express';
import { IdempotencyInterceptor } from '../../idempotency/idempotency.interceptor.js';
import { JsonContentTypeGuard } from '../../common/json-content-type.guard.js';
import type { TicketResponse } from '../dto/ticket-response.dto.js';
import type { TicketTransitionsResponse } from '../dto/ticket-transitions-response.dto.js';
import { parseTicketQuery } from '../query/ticket-query.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { setPageHeaders } from '../../common/paging/page-headers.js';
import { type TicketPage, TicketsService } from '../tickets.service.js';
import { ticketsApi } from '../tickets.openapi.js';
import { writeContext } from '../../common/context/write-context.js';
import { ticketBodyEtag, withEtag } from '../ticket-etag.js';
import { PAGE_PARAMETERS, parseGroupBy, parseZone, queryProblem, statsProblem } from '../stats/ticket-stats.js';
import { pipeline } from 'node:stream/promises';
import { TicketExportService } from '../export/ticket-export.service.js';
import { ticketExportApi } from '../export/ticket-export.openapi.js';
import { ticketStatsApi } from '../stats/ticket-stats.openapi.js';
import type { TicketStatsResponse } from '../stats/ticket-stats.dto.js';
import type { TicketSlaFiguresResponse } from '../stats/ticket-sla-figures.dto.js';
import { ticketSlaFiguresApi } from '../stats/ticket-sla-figures.openapi.js';
import { matchingTicketsSql } from '../query/ticket-query-sql.js';
import { TICKET_SLA_SUMMARIES, type TicketSlaSummaries } from '../ticket-sla-summaries.js';
import type { TicketV2Response } from '../dto/ticket-v2-response.dto.js';

const COLLECTION = '/api/v2/tickets';

const api = ticketsApi('v2');

/**
 * A count's parameters (GET …/stats and …/stats/sla): refused to a requester before any is read (a requester learns
 * nothing of them either), and without the list's sort and page, which a count has no use for.
 */
function countParameters(request: Request): Request['query'] {
  if (isRequester(viewerOf(request))) throw requesterMayNot("count tickets: the numbers are the desk's");
  const paging = PAGE_PARAMETERS.find((name) => name in request.query);
  if (paging) throw statsProblem(paging, 'A count takes the filters of the list, not its sort or page', String(request.query[paging]));
  return request.query;
}

/**
 * Version 2 of the tickets API: the same operations on the same service as v1, with the changes that would
 * break a v1 client: a paged envelope, filters that AND, 400 for unknown parameters, RFC 9457 errors
 * (rendered by the error filter for every path under /api/v2).
 */
@Controller('api/v2/tickets')
@api.tickets()
export class TicketsV2Controller {
  private readonly sla: boolean;

  constructor(
    private readonly tickets: TicketsService,
    @Inject(TICKET_SLA_SUMMARIES) private readonly slaSummaries: TicketSlaSummaries,
    private readonly participants: ParticipantsRepository,
    private readonly tags: TagsRepository,
    private readonly fields: FieldsService,
    private readonly fieldValues: FieldValuesRepository,
    private readonly links: LinksRepository,
    private readonly merges: MergesRepository,
    private readonly exporter: TicketExportService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.sla = config.get('sla.enabled', { infer: true });
  }

  /**
   * The tickets as v2 shows them: with their participants and, to agents, their tags (each read only for the tickets
   * a write did not answer with them already), and their SLA summaries when SLA is on (no statement when off).
   */
  private async v2Bodies<
    T extends { id: number; ccEmails?: string[]; tags?: string[]; fields?: Record<string, unknown>; links?: Record<string, number> },
  >(
    tickets: T[],
    viewer: Viewer,
  ): Promise<Array<T & Pick<TicketV2Response, 'ccEmails' | 'tags' | 'fields' | 'links' | 'sla' | 'mergedInto'>>> {
    const ids = tickets.map((ticket) => ticket.id);
    const agent = !isRequester(viewer);
    const unknown = (part: 'ccEmails' | 'tags' | 'fields' | 'links') =>
      tickets.filter((ticket) => ticket[part] === undefined).map((ticket) => ticket.id);
    // Only a closed ticket can be a merged one: the others pay no look.
    const closed = tickets.filter((ticket) => (ticket as { status?: string }).status === TicketStatus.CLOSED).map((ticket) => ticket.id);
    const [participants, tags, fields, links, summaries, merged] = await Promise.all([
      this.participants.of(unknown('ccEmails')),
      agent ? this.tags.of(unknown('tags')) : undefined,
      agent ? this.fields.definitions().then((definitions) => this.fieldValues.of(unknown('fields'), definitions)) : undefined,
      agent ? this.links.of(unknown('links')) : undefined,
      this.slaSummaries.summaries(ids),
      this.merges.targetsOf(closed),
    ]);
    return tickets.map(({ tags: givenTags, fields: givenFields, links: givenLinks, ...ticket }) => ({
      ...(ticket as unknown as T),
      ccEmails: ticket.ccEmails ?? participants.get(ticket.id) ?? [],
      ...(tags && { tags: givenTags ?? tags.get(ticket.id) ?? [] }),
      ...(fields && { fields: givenFields ?? fields.get(ticket.id) ?? {} }),
      ...(links && { links: givenLinks ?? linkCounts(links, ticket.id) }),
      ...(summaries && { sla: summaries.get(ticket.id) ?? { breached: false, nextBreachTime: null } }),
      ...(merged.has(ticket.id) && { mergedInto: merged.get(ticket.id) }),
    }));
  }

  private async oneWithSla(response: Response, ticket: TicketResponse, viewer: Viewer): Promise<TicketV2Response> {
    const [body] = await this.v2Bodies([withEtag(response, ticket)], viewer);
    response.setHeader('ETag', ticketBodyEtag(ticket, body));
    return body;
  }

  @Post()
  @api.create()
  @UseGuards(JsonContentTypeGuard)
  // A replay answers the stored response, ETag included, without running the handler.
  @UseInterceptors(IdempotencyInterceptor)
  async create(
    @Body() request: TicketV2Request,
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TicketV2Response> {
    const parts = { ccEmails: canonicalCcEmails(request.ccEmails)!, tags: canonicalTags(request.tags)!, fields: request.fields ?? null };
    const ticket = await this.tickets.create(request, writeContext(http), parts);
    response.setHeader('Location', `${COLLECTION}/${ticket.id}`);
    return this.oneWithSla(response, ticket, viewerOf(http));
  }

  @Get()
  @api.list()
  async findAll(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<TicketPage> {
    const viewer = viewerOf(request);
    const page = await this.tickets.list(parseTicketQuery(request.query, 'v2', this.sla), viewer);
    setPageHeaders(response, COLLECTION, request.originalUrl, page);
    return { ...page, items: await this.v2Bodies(page.items, viewer) };
  }

  // Before `:id`, which would take `stats` for an id.
  @Get('stats')
  @ticketStatsApi()
  stats(@Req() request: Request): Promise<TicketStatsResponse> {
    const { groupBy, zone, ...filters } = countParameters(request);
    const keys = parseGroupBy(groupBy);
    return this.tickets.stats(parseTicketQuery(filters, 'v2', this.sla), keys, viewerOf(request), parseZone(zone));
  }

  // Before `:id`, as stats; and before SlaModule's `:id/sla`, as TicketsModule comes before it in AppModule.
  @Get('stats/sla')
  @ticketSlaFiguresApi()
  async slaFigures(@Req() request: Request): Promise<TicketSlaFiguresResponse> {
    const query = await this.tickets.checked(parseTicketQuery(countParameters(request), 'v2', this.sla));
    const figures = this.slaSummaries.figures(matchingTicketsSql(query));
    if (!figures) throw new NotFoundException('SLA clocks are off (SLA_ENABLED=false): there are no SLA figures');
    const [byMetric, total] = await Promise.all([figures, this.tickets.count(query)]);
    return { total, figures: byMetric };
  }

  // Before `:id`, as stats.
  @Get('export')
  @ticketExportApi()
  async export(@Req() request: Request, @Res() response: Response): Promise<void> {
    if (isRequester(viewerOf(request))) throw requesterMayNot("export tickets: exports are the desk's");
    const { format, ...filters } = request.query;
    const paging = PAGE_PARAMETERS.find((name) => name in filters);
    if (paging)
      throw queryProblem('exportQuery', paging, 'An export takes the filters of the list, not its sort or page', String(filters[paging]));
    const chosen = format ?? (request.accepts(['application/x-ndjson', 'text/csv']) === 'text/csv' ? 'csv' : 'ndjson');
    if (chosen !== 'csv' && chosen !== 'ndjson') throw queryProblem('exportQuery', 'format', 'ndjson or csv', String(chosen));
    const query = parseTicketQuery(filters, 'v2', this.sla);
    // Express answers HEAD from this route: the headers, without reading a ticket (its body would be thrown away).
    const body = request.method === 'HEAD' ? undefined : await this.exporter.export(query, chosen);
    response.setHeader('Content-Type', chosen === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
    response.setHeader('Content-Disposition', `attachment; filename="tickets.${chosen}"`);
    response.setHeader('Vary', 'Accept');
    response.setHeader('Cache-Control', 'no-store');
    if (!body) return void response.end();
    // A failure once the first bytes are out can only cut the body short: the client sees it end without its last line.
    pipeline(body, response).catch(() => undefined);
  }

  @Get(':id')
  @api.get()
  async findOne(
    @Param('id', IdPipe) id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TicketV2Response> {
    return this.oneWithSla(response, await this.tickets.findOne(id), viewerOf(request));
  }

  @Get(':id/transitions')
  @api.transitions()
  transitions(@Param('id', IdPipe) id: string): Promise<TicketTransitionsResponse> {
    return this.tickets.transitions(id);
  }

  @Put(':id')
  @api.replace()
  @UseGuards(JsonContentTypeGuard)
  async replace(
    @Param('id', IdPipe) id: string,
    @Body() request: TicketV2Request,
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
    @Headers('if-match') ifMatch?: string,
  ): Promise<TicketV2Response> {
    const tags = canonicalTags(request.tags)!;
    const parts = {
      ccEmails: canonicalCcEmails(request.ccEmails),
      tags: () => tags,
      fields: { given: request.fields ?? null, write: 'replace' as const },
    };
    const ticket = await this.tickets.replace(id, request, ifMatch, writeContext(http), parts);
    return this.oneWithSla(response, ticket, viewerOf(http));
  }

  @Patch(':id')
  @api.patch()
  @UseGuards(JsonContentTypeGuard)
  @UseInterceptors(IdempotencyInterceptor)
  async patch(
    @Param('id', IdPipe) id: string,
    @Body() patch: TicketV2Patch,
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
    @Headers('if-match') ifMatch?: string,
  ): Promise<TicketV2Response> {
    const tags = patch.tags === undefined ? undefined : canonicalTags(patch.tags)!;
    const parts = {
      ccEmails: patch.ccEmails === undefined ? undefined : canonicalCcEmails(patch.ccEmails),
      tags: tags && (() => tags),
      fields: patch.fields === undefined ? undefined : { given: patch.fields, write: 'patch' as const },
      objectName: 'ticketV2Patch',
    };
    return this.oneWithSla(response, await this.tickets.patch(id, patch, ifMatch, writeContext(http), parts), viewerOf(http));
  }

  @Post(':id/tags')
  @api.retag()
  @HttpCode(200)
  @UseGuards(JsonContentTypeGuard)
  @UseInterceptors(IdempotencyInterceptor)
  async retag(
    @Param('id', IdPipe) id: string,
    @Body() change: TagsChangeRequest,
    @Req() http: Request,
    @Res({ passthrough: true }) response: Response,
    @Headers('if-match') ifMatch?: string,
  ): Promise<TicketV2Response> {
    const [add, remove] = [canonicalTags(change.add)!, canonicalTags(change.remove)!];
    return this.oneWithSla(response, await this.tickets.retag(id, add, remove, ifMatch, writeContext(http)), viewerOf(http));
  }

  @Delete(':id')
  @api.remove()
  @HttpCode(204)
  remove(@Param('id', IdPipe) id: string, @Headers('if-match') ifMatch?: string): Promise<void> {
    return this.tickets.remove(id, ifMatch);
  }
}
