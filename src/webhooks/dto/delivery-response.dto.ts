import { ApiProperty } from '@nestjs/swagger';

/** One delivery of an event to an endpoint. */
export class DeliveryResponse {
  @ApiProperty({ type: 'integer', format: 'int64', example: 981 })
  id: number;

  @ApiProperty({
    description: 'The event id: `webhook-id`, and the message id on RabbitMQ',
    example: '3b1f0c8e-4f7a-4b8e-9a51-2f1d3c5e7a90',
  })
  eventId: string;

  @ApiProperty({ description: 'The webhook type', example: 'ticket.updated' })
  type: string;

  @ApiProperty({ type: 'integer', format: 'int64', example: 42 })
  ticketId: number;

  @ApiProperty({
    description: 'When the change happened (the event occurredAt)',
    type: String,
    format: 'date-time',
    example: '2026-11-22T20:37:14.101Z',
  })
  occurredAt: Date;

  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'], example: 'succeeded' })
  status: 'pending' | 'succeeded' | 'failed';

  @ApiProperty({ type: 'integer', example: 1 })
  attempts: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-22T20:37:14.123Z' })
  lastAttemptAt: Date | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 200 })
  lastStatusCode: number | null;

  @ApiProperty({
    description: "What went wrong, in the service's words (a status line at most: the receiver's body is never kept)",
    type: String,
    nullable: true,
    example: null,
  })
  lastError: string | null;

  @ApiProperty({
    description: 'When the next attempt is due; null once finished',
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
  })
  nextAttemptAt: Date | null;

  @ApiProperty({ description: 'How long the last attempt took', type: 'integer', nullable: true, example: 38 })
  durationMs: number | null;
}

/** One page of an endpoint's deliveries, newest first. */
export class DeliveryPageResponse {
  @ApiProperty({ type: [DeliveryResponse] })
  items: DeliveryResponse[];

  @ApiProperty({ description: 'Pass as `cursor` for the next page; null on the last page', type: String, nullable: true, example: null })
  nextCursor: string | null;
}

/** The answer to a replay. */
export class ReplayResponse {
  @ApiProperty({ description: 'How many deliveries were queued again', type: 'integer', example: 12 })
  replayed: number;
}

/** The outcome of a test request (`POST …/{id}/test`). */
export class TestDeliveryResponse {
  @ApiProperty({ description: 'The `webhook-id` of the test request', example: '0d1c2b3a-4958-4677-8695-a4b3c2d1e0f9' })
  eventId: string;

  @ApiProperty({ description: 'Whether the endpoint answered 2xx', example: true })
  success: boolean;

  @ApiProperty({ type: 'integer', nullable: true, example: 204 })
  statusCode: number | null;

  @ApiProperty({ description: "The service's own words; never the receiver's body", type: String, nullable: true, example: null })
  error: string | null;

  @ApiProperty({ type: 'integer', example: 41 })
  durationMs: number;
}
