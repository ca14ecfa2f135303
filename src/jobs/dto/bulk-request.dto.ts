import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { IsIdList } from '../../common/validation/spring-constraints.js';
import { IsCcEmails } from '../../people/cc-emails.js';
import { IsFieldValues } from '../../fields/field-values.js';
import { TicketPatch } from '../../tickets/dto/ticket-patch.dto.js';
import { BULK_IDS_MAX } from '../bulk-request.js';

/** What a bulk change does to each ticket: a merge patch of its fields, its tags added and removed, its values. */
export class BulkTicketPatch extends TicketPatch {
  @ApiPropertyOptional({ description: "Replaces each ticket's participants", type: [String], nullable: true })
  @IsCcEmails()
  ccEmails?: string[] | null;

  @ApiPropertyOptional({
    description: 'Tags added to and removed from each ticket (a tag in both is removed)',
    type: 'object',
    properties: { add: { type: 'array', items: { type: 'string' } }, remove: { type: 'array', items: { type: 'string' } } },
    example: { add: ['prtg-night'], remove: ['new'] },
  })
  @Allow()
  tags?: { add?: string[] | null; remove?: string[] | null } | null;

  @ApiPropertyOptional({
    description: 'Custom field values, a merge patch (`null` removes a value)',
    type: 'object',
    additionalProperties: true,
  })
  @IsFieldValues()
  fields?: Record<string, unknown> | null;
}

/** Body of POST /api/v2/tickets/bulk: which tickets (ids, or a list's filters read when the job starts), and what to do. */
export class BulkRequest {
  @ApiPropertyOptional({
    description: `The tickets, at most ${BULK_IDS_MAX} distinct ids; or give \`filter\``,
    type: [Number],
    example: [12, 13],
  })
  @IsIdList(BULK_IDS_MAX)
  ids?: number[] | null;

  @ApiPropertyOptional({
    description: "The list's filters (`GET /api/v2/tickets`), a list of values as an array: the tickets they match when the job starts",
    type: 'object',
    additionalProperties: true,
    example: { status: ['OPEN'], tags: ['prtg'], createdBefore: '2026-11-30T06:00:00Z' },
  })
  @Allow()
  filter?: Record<string, unknown> | null;

  @ApiProperty({ description: 'What changes on each ticket, as a PATCH of it would', type: BulkTicketPatch })
  @Allow()
  patch: Record<string, unknown>;

  @ApiPropertyOptional({
    description: 'A comment added to each ticket after its change',
    type: 'object',
    properties: { body: { type: 'string' }, visibility: { type: 'string', enum: ['PUBLIC', 'INTERNAL'] } },
    required: ['body'],
    example: { body: 'Closed: the alert cleared overnight.', visibility: 'INTERNAL' },
  })
  @Allow()
  comment?: Record<string, unknown> | null;
}
