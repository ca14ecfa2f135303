import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FIELD_VALUES_SCHEMA } from '../../fields/field-values.js';
import { TicketResponse } from './ticket-response.dto.js';

export class TicketSlaSummaryResponse {
  @ApiProperty({ description: 'Whether any SLA clock of the ticket has breached, in any cycle', example: false })
  breached: boolean;

  @ApiProperty({
    description: 'The earliest breach time of its running clocks; null when none runs (paused, completed, or no clocks)',
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-11-23T16:00:00.000Z',
  })
  nextBreachTime: Date | null;
}

/** A ticket in v2: v1's fields, its participants, its tags, custom fields and links, and its SLA summary when SLA is on (SLA_ENABLED=true). */
export class TicketV2Response extends TicketResponse {
  @ApiProperty({ description: 'Participants, lower-cased, in the order given', type: [String], example: ['bob@example.com'] })
  ccEmails: string[];

  @ApiPropertyOptional({
    description: "Tags, sorted; shown to agents (a requester token's answers leave them out)",
    type: [String],
    example: ['network', 'site:berlin'],
  })
  tags?: string[];

  @ApiPropertyOptional({
    ...FIELD_VALUES_SCHEMA,
    description:
      "Custom field values by key (a field without a value is absent); shown to agents (a requester token's answers leave them out)",
  })
  fields?: Record<string, unknown>;

  @ApiPropertyOptional({
    description: "The ticket's links counted by their type as this ticket sees them (docs/api.md#links), `{}` without any; shown to agents",
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 1 },
    example: { causes: 3, 'relates-to': 1 },
  })
  links?: Record<string, number>;

  @ApiPropertyOptional({
    description:
      'The ticket this one was merged into (docs/api.md#merge), present only on a merged ticket: it is CLOSED and takes no write; ' +
      'its conversation goes on there',
    example: 7,
  })
  mergedInto?: number;

  @ApiPropertyOptional({
    description: 'Only when SLA clocks are on (docs/sla.md); the ETag of a body with it also names the summary, which If-Match ignores',
    type: TicketSlaSummaryResponse,
  })
  sla?: TicketSlaSummaryResponse;
}
