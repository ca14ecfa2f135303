import { ApiProperty } from '@nestjs/swagger';

/** One change of the feed: its event's envelope, the ticket as the change left it, and the event itself. */
export class ChangeItemResponse {
  @ApiProperty({ description: 'Opaque position after this change: pass as `after` (or SSE `Last-Event-ID`) to continue from here' })
  cursor: string;

  @ApiProperty({ description: "The event's id: the same as the RabbitMQ message's and the webhook's", format: 'uuid' })
  eventId: string;

  @ApiProperty({ description: 'CREATED, UPDATED, DELETED, COMMENT_ADDED, or a kind added later', example: 'UPDATED' })
  eventType: string;

  @ApiProperty({ description: 'When the write happened (UTC)', format: 'date-time' })
  occurredAt: string;

  @ApiProperty({ description: 'The ticket the change is about', format: 'int64' })
  ticketId: number;

  @ApiProperty({
    description:
      'The ticket after the write, as in the event; null for DELETED (a tombstone) and for kinds whose event carries no ticket (COMMENT_ADDED)',
    // By name, not by class: the feed carries what events carry and knows no feature (tickets/ depends on it, through the outbox).
    allOf: [{ $ref: '#/components/schemas/TicketResponse' }],
    nullable: true,
  })
  ticket: Record<string, unknown> | null;

  @ApiProperty({
    description: "The event exactly as published on RabbitMQ (and sent as a webhook's `data`), e.g. COMMENT_ADDED's `comment`",
    type: 'object',
    additionalProperties: true,
  })
  data: Record<string, unknown>;
}
