import { Database } from '../database/database.js';
import { ConflictException, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HistoryAction } from './history-action.js';
import { TicketHistoryRepository } from './ticket-history.repository.js';
import { IdempotencyService } from '../idempotency/idempotency.service.js';
import { type FieldChange, fieldChanges, ticketChanges } from './ticket-changes.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import type { TicketPatch } from './dto/ticket-patch.dto.js';
import type { TicketRequest } from './dto/ticket-request.dto.js';
import type { TicketResponse } from './dto/ticket-response.dto.js';
import type { TicketTransitionsResponse } from './dto/ticket-transitions-response.dto.js';
import { routingKeyOf, ticketEvent } from './events/ticket-event.js';
import type { ListedTicket } from './ticket-row.js';
import { assertIfMatch, ticketEtag } from './ticket-etag.js';
import { newTicket, patchTicket, replaceTicket, type TicketState } from './ticket.rules.js';
import { assertNotMerged, ticketNotFound } from './ticket-not-found.js';
import { TicketStatus } from './ticket-status.enum.js';
import { allowedStatuses, assertTransition } from './ticket-workflow.js';
import { type NewTicketRow, type TicketJsonRows, TicketsRepository } from './tickets.repository.js';
import { anonymousWrite, type WriteContext } from '../common/context/write-context.js';
import { encodeCursor } from './query/ticket-cursor.js';
import type { TicketQuery } from './query/ticket-query.js';
import { assertPrefixesBounded } from './query/search-prefix-bound.js';
import { type Transaction, type TransactionWrites } from '../database/transaction.js';
import type { Queryable } from '../database/statement-batch.js';
import { BatchedWrites } from '../database/batched-writes.js';
import { currentTraceContext, type TraceHeaders } from '../observability/tracing/trace-context.js';
import type { AppConfig } from '../config/app-config.js';
import type { TicketWorkflow } from '../config/tickets-config.js';
import { TicketWriteHooks } from './ticket-write-hooks.js';
import type { SqlStatement } from './query/ticket-query-sql.js';
import { DESK, isRequester, type RequesterViewer, type Viewer } from '../common/context/viewer.js';
import { visibleTicketIds } from '../people/visibility.js';
import { TicketAccessRepository } from '../people/ticket-access.repository.js';
import { ParticipantsRepository, participantsRead } from '../people/participants.repository.js';
import { known } from '../database/rows-read.js';
import { assertRequesterCreate, assertRequesterPatch, requesterMayNot } from '../people/requester-writes.js';
import { TagsRepository, tagsRead } from '../tags/tags.repository.js';
import { assertTagCount, changedTags } from '../tags/tags.js';
import { seenBy } from '../people/visibility.js';
import { FieldsService, invalidFields } from '../fields/fields.service.js';
import { resolveFieldFilters, resolveFieldSort } from '../fields/field-filters.js';
import { type GroupKey, groupByProblem, groupSql, STATS_GROUPS_MAX, STATS_READ_MAX } from './stats/ticket-stats.js';
import { TIME_BUCKETS_MAX, timeBuckets, utcNumber } from './stats/time-buckets.js';
import type { TicketStatsResponse } from './stats/ticket-stats.dto.js';
import { LinksRepository, linksRead } from './links/links.repository.js';
import { MergesRepository, sourcesRead } from './merges/merges.repository.js';
import { linkCounts } from './links/links.js';
import { recordLinkChange } from './links/link-changes.js';
import { FieldValuesRepository, type ValueRow, valueRowsRead, valuesOf, valuesRead } from '../fields/field-values.repository.js';
import { sharedDefinitionsRead, type StoredDefinition } from '../fields/field-definitions.repository.js';
import { applyFieldValues, type FieldValue, type FieldValues } from '../fields/field-values.js';

/** One page of a list; unpaged (v1 without `limit`) it holds every match and neither cursor nor total. */
export interface TicketPage {
  items: ListedTicket[];
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null;
  /** How many tickets match the filters; null when not asked for (or unpaged). */
  total: number | null;
}

/** What a v2 create sets beyond v1's fields: its participants and tags (in canonical form), and its custom field values. */
export interface NewTicketParts {
  ccEmails: string[];
  tags: string[];
  /** The body's `fields`, which the definitions check (null: none). Absent (a mail's ticket): none, and none is required. */
  fields?: unknown;
}

/** A v2 create's parts once checked: its custom field values by key. */
type CheckedParts = NewTicketParts & { fields: FieldValues };

/** What a v2 update does beyond v1's fields; a part absent stays as it is. */
export interface TicketPartsWrite {
  /** Replaces the ticket's participants. */
  ccEmails?: string[];
  /** The ticket's tags after the write, from those it has: a list given replaces them, the tags endpoint adds and removes. */
  tags?: (current: string[]) => string[];
  /** The body's `fields` and how they apply: a replacement (PUT) or a merge patch (PATCH). */
  fields?: { given: unknown; write: 'replace' | 'patch' };
  /** The request body's object name, for a 400 naming its tags or fields (`ticketV2Request` unless said). */
  objectName?: string;
}

/**
 * The ticket as a v2 answer (and its stored replay) shows it to the writer: with its participants and tags, but no
 * tags for a requester (src/people/visibility.ts); as it is for v1 (no parts).
 */
/**
 * A v2 write's answer: the ticket with its parts (`links` too when known: a new ticket has none, an update with an
 * Idempotency-Key reads them, so that its replay answers them as well), as the writer may see it.
 */
function withParts(
  ticket: TicketResponse,
  parts: (CheckedParts & { links?: Record<string, number> }) | undefined,
  context: WriteContext,
): TicketResponse {
  return parts === undefined ? ticket : seenBy(context.viewer, { ...ticket, ...parts } as TicketResponse);
}

/**
 * The buckets a time key counts in: its unit's, in `zone`, from the earliest to the latest time among the matches (so a
 * bucket between them with none is absent from the answer, not zero); none when no match has the time.
 */
function bucketsOf(
  key: Extract<GroupKey, { kind: 'time' }>,
  zone: string,
  range: { from: Date | null; to: Date | null },
): Array<{ start: number; label: string }> {
  if (!range.from || !range.to) return [];
  const buckets = timeBuckets(key.unit, zone, range.from.getTime(), range.to.getTime());
  if (buckets) return buckets;
  throw groupByProblem(
    key.name,
    `The matches span more than ${TIME_BUCKETS_MAX} ${key.unit}s: narrow them (createdAfter, createdBefore) or count by a longer unit`,
  );
}

/** The tickets a requester sees (the one rule, src/people/visibility.ts); undefined for the desk, which sees all. */
function visibleTo(viewer: Viewer): SqlStatement | undefined {
  return isRequester(viewer) ? visibleTicketIds(viewer) : undefined;
}

/** Tags and custom fields are the desk's: a requester, who never sees them, cannot find tickets by them either. */
function assertViewerMayFilter(query: TicketQuery, viewer: Viewer): void {
  const { tags, anyTags, fields, linkedTo, linkType } = query.filters;
  if (isRequester(viewer) && (tags || anyTags || fields || query.byField || linkedTo !== undefined || linkType))
    throw requesterMayNot("filter or sort by tags, custom fields or links: they are the desk's");
}

/** A create as its request hands it to the transaction that writes it, maybe with those of other requests. */
interface NewTicket extends NewTicketRow {
  context: WriteContext;
  trace: TraceHeaders | undefined;
  /** Its participants, tags and field values (v2); undefined for a v1 create, whose answer never shows them. */
  parts?: CheckedParts;
  /** The custom fields its values were checked by. */
  definitions: StoredDefinition[];
  /** The body's `fields` when it gives values: checked again by the definitions in the write's transaction. */
  givenFields?: unknown;
}

/**
 * Tickets' rules, transactions and batching; their SQL is TicketsRepository's, which runs a write's statements on
 * the transaction handed to it (TypeORM's connections: its transactions, timeouts and error types).
 */
@Injectable()
export class TicketsService {
  /** Creates arriving together are written in one transaction (see BatchedWrites), within the request's deadline. */
  private readonly creates: BatchedWrites<NewTicket, TicketResponse>;
  private readonly workflow: TicketWorkflow;

  constructor(
    private readonly database: Database,
    private readonly outbox: OutboxWriter,
    private readonly idempotency: IdempotencyService,
    private readonly tickets: TicketsRepository,
    private readonly history: TicketHistoryRepository,
    private readonly hooks: TicketWriteHooks,
    private readonly access: TicketAccessRepository,
    private readonly participants: ParticipantsRepository,
    private readonly tags: TagsRepository,
    private readonly fields: FieldsService,
    private readonly fieldValues: FieldValuesRepository,
    private readonly links: LinksRepository,
    private readonly merges: MergesRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    this.workflow = config.get('tickets', { infer: true }).workflow;
    this.creates = new BatchedWrites(database.budgetMs, (tickets) => this.insertAll(tickets));
  }

  /** The ticket row, its search words, its history entry, its CREATED event and its idempotency record commit together. */
  /**
   * `parts` (v2): the new ticket's participants and tags; with them, the answer (and the Idempotency-Key's stored
   * answer) carries them. Without them (v1), neither does.
   */
  async create(request: TicketRequest, context: WriteContext = anonymousWrite(), parts?: NewTicketParts): Promise<TicketResponse> {
    const requester = context.viewer && isRequester(context.viewer);
    if (requester) {
      assertRequesterCreate(context.viewer as RequesterViewer, request);
      if (parts?.ccEmails.length) throw requesterMayNot('name participants (ccEmails): agents set them');
      if (parts?.tags.length) throw requesterMayNot('tag a ticket: agents tag them');
      if (parts?.fields && Object.keys(parts.fields).length > 0) throw requesterMayNot('set custom fields: agents set them');
    }
    if (parts) assertTagCount(parts.tags, 'ticketV2Request');
    // A v1 create sets no values and none is required of it: it reads no definitions (no round trip before its own).
    const definitions = parts ? await this.fields.definitions() : [];
    let values: FieldValues = {};
    // A requester's ticket, and a mail's, are opened before an agent has seen them: no field is required of them.
    if (parts && parts.fields !== undefined && !requester) {
      const checked = applyFieldValues(definitions, parts.fields, 'create');
      if (!checked.values) throw invalidFields('ticketV2Request', checked.problems);
      values = checked.values;
    }
    const now = new Date();
    const item = {
      fields: newTicket(request, now),
      now,
      context,
      trace: currentTraceContext(),
      parts: parts && { ...parts, fields: values },
      definitions,
    };
    // Values are checked again in the write's transaction, by the definitions as they are then (see insertAll);
    // a value they refuse fails the batch, whose creates are then written each alone (BatchedWrites).
    return this.creates.write(Object.keys(values).length === 0 ? item : { ...item, givenFields: parts!.fields });
  }

  private insertAll(pending: NewTicket[]): Promise<TicketResponse[]> {
    return this.database.transaction(async (transaction) => {
      const given = pending.filter((item) => item.givenFields !== undefined);
      // The definitions under their shared lock come in the round trip of the inserts; a value they refuse rolls all back.
      const [definitions, tickets] = await this.tickets.insertAllAfter(
        transaction,
        given.length > 0 ? sharedDefinitionsRead : known<StoredDefinition[]>([]),
        pending,
      );
      for (const item of given) {
        const checked = applyFieldValues(definitions, item.givenFields, 'create', {});
        if (!checked.values) throw invalidFields('ticketV2Request', checked.problems);
        Object.assign(item, { definitions, parts: { ...item.parts!, fields: checked.values } });
      }
      await this.tickets.insertWords(transaction.later, tickets);
      for (const [i, ticket] of tickets.entries()) {
        const { context, now, trace, parts, definitions } = pending[i];
        const ccEmails = parts?.ccEmails ?? [];
        const tags = parts?.tags ?? [];
        const fields = parts?.fields ?? {};
        if (ccEmails.length > 0) await this.participants.replace(transaction.later, ticket.id, [], ccEmails);
        if (tags.length > 0) await this.tags.change(transaction.later, ticket.id, [], tags);
        await this.fieldValues.change(transaction.later, ticket.id, definitions, {}, fields);
        await this.recordWrite(transaction.later, context, HistoryAction.CREATED, null, ticket, now, trace, {
          tags,
          fields,
          ...(tags.length > 0 && { tagsChanged: { from: [], to: tags } }),
          fieldsChanged: fieldChanges({}, fields),
          ...(ccEmails.length > 0 && { ccEmails: { from: [], to: ccEmails } }),
        });
        await this.hooks.ticketCreated(transaction.later, ticket, now);
        await context.recordWith?.(transaction, { ticketId: ticket.id });
        // Its event carries the ticket as every reader knows it; the answer (and its stored replay) the v2 body.
        await this.idempotency.finishCreated(
          transaction,
          context.idempotency,
          withParts(ticket, parts && { ...parts, links: {} }, context),
          ticketEtag(ticket),
        );
      }
      return tickets.map((ticket, i) => withParts(ticket, pending[i].parts && { ...pending[i].parts!, links: {} }, pending[i].context));
    });
  }

  /**
   * The tickets a query selects (see parseTicketQuery for what it means). The total is counted beside the
   * page, on a second connection at the same time, so a paged request costs the slower of the two
   * statements rather than both; the two are not one snapshot, so a write in between can make them differ by it.
   * A search with prefix words first checks that none of them matches too many words (search-prefix-bound.ts).
   */
  async list(listed: TicketQuery, viewer: Viewer = DESK): Promise<TicketPage> {
    assertViewerMayFilter(listed, viewer);
    const query = await this.checked(listed);
    const visible = visibleTo(viewer);
    const [tickets, counted] = await Promise.all([
      this.tickets.list(query, visible),
      query.page?.withTotal ? this.tickets.count(query, visible) : undefined,
    ]);
    const total = counted ?? null;
    if (!query.page || tickets.length <= query.page.limit) return { items: tickets, nextCursor: null, total };
    const items = tickets.slice(0, query.page.limit);
    return { items, nextCursor: encodeCursor(query.fingerprint, query.sort, items.at(-1)!, query.byField), total };
  }

  /**
   * Every ticket an unpaged query selects, as a stream of rows opened at the first (see Database.stream):
   * the request's deadline bounds the prefix check and the wait for the first row, not the rest.
   */
  async stream(listed: TicketQuery, viewer: Viewer = DESK): Promise<TicketJsonRows> {
    assertViewerMayFilter(listed, viewer);
    const query = await this.checked(listed);
    return this.tickets.stream(query, visibleTo(viewer));
  }

  /**
   * The tickets the query's filters match, counted by `keys` (GET /api/v2/tickets/stats): the counts and the total read
   * side by side, as a page and its total are. The desk's numbers: a requester may not ask.
   */
  async stats(listed: TicketQuery, keys: GroupKey[], viewer: Viewer = DESK, zone = 'UTC'): Promise<TicketStatsResponse> {
    if (isRequester(viewer)) throw requesterMayNot("count tickets: the numbers are the desk's");
    const query = await this.checked(listed);
    const fields = new Map<string, { fieldId: number; column: string; type: string }>();
    const definitions = keys.some((key) => key.kind === 'field') ? await this.fields.definitions() : [];
    for (const key of keys) {
      if (key.kind !== 'field') continue;
      const definition = definitions.find((candidate) => candidate.key === key.key);
      if (!definition || definition.type === 'number' || definition.type === 'date') {
        throw groupByProblem(
          key.name,
          definition
            ? `A ${definition.type} field is counted by its ranges (field.${key.key}.gte, .lt), not grouped`
            : 'Unknown custom field',
        );
      }
      fields.set(key.key, { fieldId: definition.id, column: FieldValuesRepository.column(definition), type: definition.type });
    }
    // A ticket column is counted in one scan of the tickets, whatever their number; a tag, a field's value or a time
    // costs a read per match (a join, a bucket), so those count at most STATS_READ_MAX matches.
    const perMatch = keys.filter((key) => key.kind === 'tag' || key.kind === 'field' || key.kind === 'time');
    const time = keys.find((key) => key.kind === 'time');
    const counted = async (db?: Queryable) => {
      // With a time key, the matches' count comes with their earliest and latest times, in the same one read.
      const range = time && (await this.tickets.timeRange(query, time.column, db));
      const total = range ? range.total : await this.tickets.count(query, undefined, db);
      if (perMatch.length > 0 && total > STATS_READ_MAX) {
        throw groupByProblem(
          keys.map((key) => key.name).join(','),
          `Counting by ${perMatch.map((key) => key.name).join(' and ')} reads each match: the filters match ${total} tickets, ` +
            `more than ${STATS_READ_MAX}; narrow them (createdAfter, status, tags…), or count by status, priority, assignedTo or ` +
            'requesterDomain, which count any number',
        );
      }
      const buckets = time && range ? bucketsOf(time, zone, range) : [];
      const starts = buckets.map((bucket) => utcNumber(bucket.start));
      return { buckets, rows: await this.tickets.countGroups(query, groupSql(keys, fields, starts), db), total };
    };
    let counts: Awaited<ReturnType<typeof counted>>;
    // The buckets from the matches' times, and their counts, of one snapshot: a ticket written in between would
    // otherwise fall outside the buckets read.
    if (time) counts = await this.database.transaction((snapshot) => counted(snapshot));
    else if (perMatch.length > 0) counts = await counted();
    else {
      // Nothing to check first: the groups and the total are counted side by side.
      const [rows, total] = await Promise.all([this.tickets.countGroups(query, groupSql(keys, fields)), this.tickets.count(query)]);
      counts = { buckets: [], rows, total };
    }
    const { buckets, rows, total } = counts;
    const value = (key: GroupKey, raw: unknown) =>
      raw === null || raw === undefined || (key.kind === 'time' && Number(raw) < 1)
        ? null
        : key.kind === 'time'
          ? buckets[Number(raw) - 1].label
          : key.kind === 'field' && fields.get(key.key)!.type === 'boolean'
            ? raw === 'true'
            : String(raw);
    return {
      groupBy: keys.map((key) => key.name),
      total,
      truncated: rows.length > STATS_GROUPS_MAX,
      groups: rows.slice(0, STATS_GROUPS_MAX).map((row) => ({
        key: Object.fromEntries(keys.map((key, i) => [key.name, value(key, row[`g${i}`])])),
        count: Number(row.count),
      })),
    };
  }

  /** A list's query checked as the list checks it: its custom fields by their definitions, its prefix words by their counts. */
  async checked(listed: TicketQuery): Promise<TicketQuery> {
    const query = await this.withFieldConditions(listed);
    const prefixCounts = this.tickets.prefixWordCounts(query.filters.search);
    if (prefixCounts) assertPrefixesBounded(query.filters.search ?? [], query.searchText, await prefixCounts);
    return query;
  }

  /** The query with its custom field filters and sort checked by the definitions (400 naming each bad one). */
  private async withFieldConditions(query: TicketQuery): Promise<TicketQuery> {
    if (!query.filters.fields && !query.byField) return query;
    const definitions = await this.fields.definitions();
    const filters = resolveFieldFilters(definitions, query.filters.fields ?? []);
    const sort = query.byField ? resolveFieldSort(definitions, query.byField) : { problems: [] };
    const problems = [...filters.problems, ...sort.problems];
    if (problems.length > 0) throw invalidFields('ticketQuery', problems);
    return {
      ...query,
      filters: query.filters.fields ? { ...query.filters, fieldConditions: filters.resolved } : query.filters,
      ...(sort.resolved && { byFieldColumn: sort.resolved }),
    };
  }

  /** How many tickets match a checked query's filters (a list's total, counted alone). */
  count(query: TicketQuery): Promise<number> {
    return this.tickets.count(query);
  }

  /** By id, read in batches with the reads of other requests (see BatchedLookup). */
  async findOne(id: string): Promise<TicketResponse> {
    const ticket = await this.tickets.findById(id);
    if (!ticket) throw ticketNotFound(id);
    return ticket;
  }

  /** The ticket's status and the statuses an update may move it to under the configured workflow. */
  /** A merged ticket may move nowhere (it takes no write). */
  async transitions(id: string): Promise<TicketTransitionsResponse> {
    const { status } = await this.findOne(id);
    const merged = status === TicketStatus.CLOSED && (await this.merges.targetsOf([Number(id)])).size > 0;
    return { status, allowed: merged ? [] : allowedStatuses(this.workflow, status) };
  }

  /** With `ifMatch`, the update only happens while the ticket is still the version the client names (412 otherwise). */
  /** `parts` (v2): what becomes of the ticket's participants and tags, which the answer then shows; absent (v1): neither. */
  async replace(
    id: string,
    request: TicketRequest,
    ifMatch?: string,
    context: WriteContext = anonymousWrite(),
    parts?: TicketPartsWrite,
  ): Promise<TicketResponse> {
    if (context.viewer && isRequester(context.viewer)) throw requesterMayNot('replace a ticket');
    return this.update(id, ifMatch, context, (current, now) => replaceTicket(current, request, now), undefined, parts);
  }

  /**
   * A JSON merge patch: the same rules, lock, If-Match, event and history as a full replacement, and an
   * Idempotency-Key's response in the same transaction (PUT, idempotent by HTTP, takes no key).
   */
  patch(
    id: string,
    patch: TicketPatch,
    ifMatch?: string,
    context: WriteContext = anonymousWrite(),
    parts?: TicketPartsWrite,
  ): Promise<TicketResponse> {
    const viewer = context.viewer;
    const authorize =
      viewer &&
      isRequester(viewer) &&
      (async (transaction: Queryable, current: TicketResponse) => {
        if (!(await this.access.allows(viewer, id, 'owner', transaction))) throw requesterMayNot('change a ticket that is not their own');
        assertRequesterPatch(patch, current.status);
      });
    return this.update(id, ifMatch, context, (current, now) => patchTicket(current, patch, now), authorize || undefined, parts);
  }

  /**
   * Adds and removes tags (POST /api/v2/tickets/{id}/tags): an update of the ticket under its row lock, so that two
   * clients' changes both survive, with the same If-Match, history, event and Idempotency-Key as a PATCH.
   */
  retag(id: string, add: string[], remove: string[], ifMatch?: string, context: WriteContext = anonymousWrite()): Promise<TicketResponse> {
    if (context.viewer && isRequester(context.viewer)) throw requesterMayNot('tag a ticket: agents tag them');
    return this.update(id, ifMatch, context, (current, now) => patchTicket(current, {}, now), undefined, {
      tags: (current) => changedTags(current, add, remove),
      objectName: 'tagsChangeRequest',
    });
  }

  private async update(
    id: string,
    ifMatch: string | undefined,
    context: WriteContext,
    apply: (current: TicketResponse, now: Date) => TicketResponse,
    authorize?: (transaction: Queryable, current: TicketResponse) => Promise<void>,
    parts?: TicketPartsWrite,
  ): Promise<TicketResponse> {
    const now = new Date();
    const definitions = await this.fields.definitions();
    const ticket = await this.database.transaction(async (transaction) => {
      // The row lock serialises concurrent updates of one ticket, so resolvedAt is set once, the workflow
      // judges each move from the status the previous one committed, and the ticket's events are recorded
      // in the order the updates commit.
      // What the ticket carries comes with it, for the event and the answer (one round trip).
      const ticketId = Number(id);
      const givesValues = parts?.fields !== undefined;
      const [current, tagsBefore, participantsBefore, fieldDefinitions, valueRows] = await this.tickets.findForUpdateWith(
        transaction,
        id,
        tagsRead([ticketId]),
        parts ? participantsRead([ticketId]) : known(new Map<number, string[]>()),
        // Values given are checked by the definitions as committed, under their shared lock (see writeFields); without
        // any, the ticket's are read by the cached ones, for the event.
        givesValues ? sharedDefinitionsRead : known(definitions),
        givesValues || definitions.length > 0 ? valueRowsRead([ticketId]) : known<ValueRow[]>([]),
      );
      if (!current) throw ticketNotFound(id);
      // Only a closed ticket can be a merged one: the others pay no look.
      if (current.status === TicketStatus.CLOSED) await assertNotMerged(transaction, id);
      await authorize?.(transaction, current);
      assertIfMatch(ifMatch, current);
      const updated = apply(current, now);
      assertTransition(this.workflow, current.status, updated.status);
      await this.tickets.update(transaction.later, id, updated);
      await this.tickets.updateWords(transaction.later, id, current, updated);
      await this.hooks.ticketUpdated(transaction, current, updated, now);
      const cc = parts && (await this.writeParticipants(transaction, id, participantsBefore.get(ticketId) ?? [], parts.ccEmails));
      const tags = await this.writeTags(transaction, id, tagsBefore.get(ticketId) ?? [], parts);
      const valuesBefore = valuesOf(valueRows, fieldDefinitions).get(ticketId) ?? {};
      const fields = await this.writeFields(transaction, id, fieldDefinitions, valuesBefore, parts);
      await this.recordWrite(transaction.later, context, HistoryAction.UPDATED, current, updated, now, undefined, {
        tags: tags.now,
        fields: fields.now,
        ...(tags.changed && { tagsChanged: tags.changed }),
        fieldsChanged: fields.changed,
        ...(cc?.changed && { ccEmails: cc.changed }),
      });
      await context.recordWith?.(transaction, { ticketId: updated.id });
      const links = cc && context.idempotency ? linkCounts(await this.links.of([updated.id], transaction), updated.id) : undefined;
      const answer = withParts(updated, cc && { ccEmails: cc.now, tags: tags.now, fields: fields.now, ...(links && { links }) }, context);
      await this.idempotency.finishUpdated(transaction, context.idempotency, answer, ticketEtag(updated));
      return answer;
    });
    return ticket;
  }

  /**
   * Deletes the ticket (its comments, history and search words go with it, by foreign key; its attachments by their
   * write hook) and records a DELETED event
   * carrying its last state, in one transaction. DELETED goes to its own routing key, never to the v1 binding.
   */
  async remove(id: string, ifMatch?: string): Promise<void> {
    const now = new Date();
    // Read before the row lock: the last state's values go with the DELETED event.
    const definitions = await this.fields.definitions();
    // The version check and the delete share the row lock, so no update can slip in between them.
    await this.database.transaction(async (transaction) => {
      // What goes with it is read with its row lock (one round trip).
      const ticketId = Number(id);
      const [last, merged, tagsOf, valuesOfTicket, links] = await this.tickets.findForUpdateWith(
        transaction,
        id,
        sourcesRead(ticketId),
        tagsRead([ticketId]),
        valuesRead([ticketId], definitions),
        linksRead([ticketId]),
      );
      if (!last) throw ticketNotFound(id);
      assertIfMatch(ifMatch, last);
      // What was merged into it would be left closed and pointing nowhere: its merges are undone first.
      if (merged.length > 0) {
        throw new ConflictException(`Ticket ${id} has tickets merged into it (${merged.join(', ')}): unmerge them before deleting it`);
      }
      const tags = tagsOf.get(last.id) ?? [];
      const fields = valuesOfTicket.get(last.id) ?? {};
      // Its links go with it (by foreign key): each ticket at their other end records an UNLINKED, under its row lock.
      const others = [...new Set(links.map((link) => (link.fromId === last.id ? link.toId : link.fromId)))];
      if (others.length > 0) await this.links.lockTickets(transaction, others);
      await this.tickets.delete(transaction.later, id);
      await this.hooks.ticketDeleted(transaction, id);
      await this.outbox.record(transaction.later, ticketEvent('DELETED', last, { tags, fields }, now), routingKeyOf('DELETED'));
      const record = { history: this.history, outbox: this.outbox, writes: transaction.later };
      for (const link of links) {
        await recordLinkChange(record, link, link.fromId === last.id ? link.toId : link.fromId, 'UNLINKED', now, null);
      }
    });
  }

  /** Makes `set` the ticket's participants, if given: what they are now, and their change when they changed. */
  private async writeParticipants(
    transaction: Queryable,
    id: string,
    before: string[],
    set?: string[],
  ): Promise<{ now: string[]; changed?: FieldChange<string[]> }> {
    if (set === undefined || set.join() === before.join()) return { now: before };
    await this.participants.replace(transaction, id, before, set);
    return { now: set, changed: { from: before, to: set } };
  }

  /**
   * Applies the write's change of the tags, if any (checked for their number), to the tags `before` it: what they are
   * now, and their change when they changed. Read even without one, for the event, which carries the ticket with its tags.
   */
  private async writeTags(
    transaction: Queryable,
    id: string,
    before: string[],
    parts?: TicketPartsWrite,
  ): Promise<{ now: string[]; changed?: FieldChange<string[]> }> {
    if (parts?.tags === undefined) return { now: before };
    const after = parts.tags(before);
    assertTagCount(after, parts.objectName ?? 'ticketV2Request');
    if (after.join() === before.join()) return { now: before };
    await this.tags.change(transaction, id, before, after);
    return { now: after, changed: { from: before, to: after } };
  }

  /**
   * Applies the write's custom field values, if any, to the values `before` it: what they are now, and the change of
   * each field that changed (`fields.<key>`). Values given are checked by `definitions` as they are in the write's
   * transaction, read under a shared lock with its row lock: the cached ones may be up to a second old, and a definition
   * changed or deleted meanwhile (FieldsService takes its row's exclusive lock) must neither be bypassed nor leave values
   * of a field that is gone.
   */
  private async writeFields(
    transaction: Transaction,
    id: string,
    definitions: StoredDefinition[],
    before: FieldValues,
    parts?: TicketPartsWrite,
  ): Promise<{ now: FieldValues; changed: Record<string, FieldChange<FieldValue | null>> }> {
    if (parts?.fields === undefined) return { now: before, changed: {} };
    const checked = applyFieldValues(definitions, parts.fields.given, parts.fields.write, before);
    if (!checked.values) throw invalidFields(parts.objectName ?? 'ticketV2Request', checked.problems);
    await this.fieldValues.change(transaction.later, id, definitions, before, checked.values);
    return { now: checked.values, changed: fieldChanges(before, checked.values) };
  }

  /** The write's history entry (what changed) and its event, in the write's transaction. */
  private async recordWrite(
    writes: TransactionWrites,
    context: WriteContext,
    action: HistoryAction.CREATED | HistoryAction.UPDATED,
    before: TicketState | null,
    ticket: TicketResponse,
    now: Date,
    trace = currentTraceContext(),
    lists: {
      tags: string[];
      fields: FieldValues;
      tagsChanged?: FieldChange<string[]>;
      fieldsChanged: Record<string, FieldChange<FieldValue | null>>;
      ccEmails?: FieldChange<string[]>;
    },
  ): Promise<void> {
    const { tags, fields, tagsChanged, fieldsChanged, ccEmails } = lists;
    await this.history.record(writes, {
      ticketId: ticket.id,
      occurredAt: now,
      actor: context.actor,
      action,
      changes: {
        ...ticketChanges(before, ticket),
        ...(ccEmails && { ccEmails }),
        ...(tagsChanged && { tags: tagsChanged }),
        ...fieldsChanged,
      },
    });
    const changeContext = {
      ...(context.causedBy && { causedBy: context.causedBy }),
      ...(before && before.status !== ticket.status && { statusFrom: before.status }),
    };
    await this.outbox.record(writes, ticketEvent(action, ticket, { tags, fields }, now), routingKeyOf(action), trace, changeContext);
  }
}
