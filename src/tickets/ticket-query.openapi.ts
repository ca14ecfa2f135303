import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { TAGS_MAX } from '../tags/tags.js';
import type { ErrorExample } from '../common/errors/api-error-response.decorator.js';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { PAGE_LIMIT } from '../common/paging/page-limit.js';
import type { QueryDialect } from '../common/paging/query-parameters.js';
import { parseTicketQuery, SEARCH_MAX_LENGTH } from './query/ticket-query.js';
import { SORT_FIELDS } from './query/ticket-sort.js';
import { LINK_TYPES } from './links/links.js';
import { TicketPriority } from './ticket-priority.enum.js';
import { TicketStatus } from './ticket-status.enum.js';

/*
 * The OpenAPI description of the list's query parameters in each version, and examples of their 400s built
 * by parseTicketQuery itself, so they stay what the service answers.
 */

const instant = (name: string, description: string) =>
  ApiQuery({
    name,
    required: false,
    description: `${description}: an ISO-8601 date-time with Z or an offset (encode + as %2B)`,
    schema: { type: 'string', format: 'date-time', example: '2026-11-22T20:37:14Z' },
  });

/** Enum filters: v1 takes one value, v2 several (repeated, or comma-separated in one value). */
const enumFilter = (dialect: QueryDialect, name: string, values: Record<string, string>, enumName: string, what: string) =>
  dialect === 'v1'
    ? ApiQuery({ name, required: false, enum: values, enumName, description: `Only tickets with this ${what}; empty counts as absent` })
    : ApiQuery({
        name,
        required: false,
        description: `Only tickets with one of these ${what} values: repeat the parameter or separate values with commas`,
        schema: { type: 'array', items: { type: 'string', enum: Object.values(values) } },
        style: 'form',
        explode: true,
      });

/** The list's filters, and with `paging` its sort and page parameters. */
export const ApiTicketQueryParameters = (dialect: QueryDialect, paging = true) =>
  applyDecorators(
    enumFilter(dialect, 'status', TicketStatus, 'TicketStatus', 'status'),
    enumFilter(dialect, 'priority', TicketPriority, 'TicketPriority', 'priority'),
    ApiQuery({
      name: 'requesterEmail',
      required: false,
      type: String,
      description:
        'Only tickets of this requester: the whole address, case-insensitive' + (dialect === 'v1' ? '; ignored when status is given' : ''),
      example: 'jane.doe@example.com',
    }),
    ApiQuery({
      name: 'assignedTo',
      required: false,
      type: String,
      description: 'Only tickets assigned to this person or group: whole value, case-insensitive',
    }),
    instant('createdAfter', 'Only tickets created at or after this instant'),
    instant('createdBefore', 'Only tickets created before this instant'),
    instant('updatedAfter', 'Only tickets last updated at or after this instant'),
    instant('updatedBefore', 'Only tickets last updated before this instant'),
    ApiQuery({
      name: 'slaBreached',
      required: false,
      type: Boolean,
      description: 'SLA clocks (SLA_ENABLED=true): true for the tickets with a clock that breached, in any cycle; false for the others',
    }),
    instant(
      'slaDueBefore',
      'SLA clocks: only tickets whose next breach time (of their running clocks) is before this instant; a ticket with no running clock never matches',
    ),
    ...(['tags', 'anyTags'] as const).map((name) =>
      ApiQuery({
        name,
        required: false,
        description:
          (name === 'tags' ? 'Only tickets with every one of these tags' : 'Only tickets with at least one of these tags') +
          `: comma-separated, in any case, at most ${TAGS_MAX} (docs/api.md#tags); refused (403) for a requester token, who never sees tags`,
        schema: { type: 'string', example: 'vpn,site:berlin' },
      }),
    ),
    ApiQuery({
      name: 'linkedTo',
      required: false,
      description: 'Only tickets linked to this one (docs/api.md#links), by `linkType` when given; refused (403) for a requester token',
      schema: { type: 'integer', minimum: 1, example: 42 },
    }),
    ApiQuery({
      name: 'linkType',
      required: false,
      description:
        'Only tickets with a link of this type as they see it (`caused-by` with linkedTo=42: the incidents 42 causes); refused (403) for a requester token',
      schema: { type: 'string', enum: [...LINK_TYPES] },
    }),
    ApiQuery({
      name: 'q',
      required: false,
      description:
        'Full-text search in title and description: every word of 3 or more characters must be a word of the ticket, ' +
        'in any case and with or without accents; a * directly after a word matches the words starting with it (print*). ' +
        'Words shorter than 3 characters and stop words such as "the" are ignored; no other operators',
      schema: { type: 'string', maxLength: SEARCH_MAX_LENGTH, example: 'vpn disconnects' },
    }),
    ...(paging
      ? [
          ApiQuery({
            name: 'sort',
            required: false,
            description:
              `Comma-separated fields of ${SORT_FIELDS.join(', ')}, each optionally prefixed with - for descending. Priority sorts by ` +
              'severity (LOW < MEDIUM < HIGH < CRITICAL), status by workflow (OPEN < IN_PROGRESS < WAITING_ON_CUSTOMER < RESOLVED < CLOSED); ' +
              'slaDueAt by the next SLA breach time, tickets without a running clock last (first with -slaDueAt); ' +
              'ties are broken by id, in the direction of the last field. Or a custom field alone, field.<key>: by its value, ' +
              'ties by id, tickets without a value last in both directions. Default: id',
            schema: {
              type: 'string',
              pattern: `^(-?(${SORT_FIELDS.join('|')})(,-?(${SORT_FIELDS.join('|')}))*|-?field\\.[a-z][a-z0-9_]{0,63})$`,
              example: '-updatedAt',
            },
          }),
          ApiQuery({
            name: 'limit',
            required: false,
            description:
              dialect === 'v1'
                ? 'Turns paging on: at most this many tickets, with a Link header to the next page and X-Total-Count'
                : `Tickets per page (default ${PAGE_LIMIT.v2Default})`,
            schema: {
              type: 'integer',
              minimum: PAGE_LIMIT.min,
              maximum: PAGE_LIMIT.max,
              ...(dialect === 'v2' && { default: PAGE_LIMIT.v2Default }),
            },
          }),
          ApiQuery({
            name: 'cursor',
            required: false,
            description:
              'Where the page starts: the cursor of the Link header (or nextCursor) of the previous page, with the same filters and sort',
            type: String,
          }),
          ApiQuery({
            name: 'total',
            required: false,
            description: 'false skips counting the matches (no X-Total-Count; `total` null), which makes a page of a long list cheaper',
            schema: { type: 'boolean', default: true },
          }),
        ]
      : []),
  );

function queryErrors(raw: Record<string, unknown>, dialect: QueryDialect) {
  try {
    parseTicketQuery(raw, dialect);
  } catch (error) {
    if (error instanceof ValidationFailedException) return { message: error.message, errors: error.fieldErrors };
    return { message: (error as Error).message };
  }
  throw new Error('expected the example query to be rejected');
}

/** Examples of the 400s of a list request. */
export function queryErrorExamples(dialect: QueryDialect, path: string): ErrorExample[] {
  const examples: ErrorExample[] = [
    { summary: 'Unknown status', path, ...queryErrors({ status: 'open' }, dialect) },
    {
      summary: 'Bad values (all at once)',
      path,
      ...queryErrors({ priority: 'URGENT', createdAfter: 'yesterday', sort: 'title', limit: '5000' }, dialect),
    },
    {
      summary: 'Cursor altered or from another query',
      path,
      ...queryErrors({ limit: '10', cursor: 'eyJxIjoiIn0.xxxxxxxxxxxxxxxx' }, dialect),
    },
  ];
  if (dialect === 'v2') examples.push({ summary: 'Unknown parameter', path, ...queryErrors({ page: '2' }, dialect) });
  return examples;
}
