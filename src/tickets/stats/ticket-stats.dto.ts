import { ApiProperty } from '@nestjs/swagger';

export class TicketStatsGroup {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: ['string', 'boolean', 'null'] },
    description: "The group's value of each key (null: none, such as no assignee or no tag)",
    example: { status: 'OPEN', priority: 'HIGH' },
  })
  key: Record<string, string | boolean | null>;

  @ApiProperty({ description: 'How many of the matching tickets are in the group', example: 12 })
  count: number;
}

/** GET /api/v2/tickets/stats: the matching tickets counted by one or two keys. */
export class TicketStatsResponse {
  @ApiProperty({ type: [String], example: ['status', 'priority'] })
  groupBy: string[];

  @ApiProperty({ description: "How many tickets match the filters: the list's total for the same filters", example: 40 })
  total: number;

  @ApiProperty({ description: 'Whether there are more groups than the 1,000 largest the answer holds', example: false })
  truncated: boolean;

  @ApiProperty({ type: [TicketStatsGroup], description: 'The largest first; a ticket is in one group per tag or multi_enum item it has' })
  groups: TicketStatsGroup[];
}
