import { ApiProperty } from '@nestjs/swagger';

/** A mail about a ticket, sent or waiting to be. */
export class NotificationResponse {
  @ApiProperty({ type: 'integer', format: 'int64', example: 9 })
  id!: number;

  @ApiProperty({ description: 'The change it tells of (its eventId on every channel)', format: 'uuid' })
  eventId!: string;

  @ApiProperty({ description: 'The kind of that change', example: 'COMMENT_ADDED' })
  eventType!: string;

  @ApiProperty({ example: 'anna@customer.example' })
  recipient!: string;

  @ApiProperty({ description: 'The Message-ID it is sent with, every time', example: '3f0c…@example.com' })
  messageId!: string;

  @ApiProperty({ enum: ['pending', 'sent', 'failed'], description: 'pending: waiting for its first or next attempt' })
  status!: 'pending' | 'sent' | 'failed';

  @ApiProperty({ type: 'integer', example: 1 })
  attempts!: number;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The SMTP server's last answer, or why it could not be reached",
    example: '250 2.0.0 Ok: queued',
  })
  lastAnswer!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time' })
  createdAt!: Date;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When a pending one is tried next' })
  nextAttemptAt!: Date | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When it was sent or failed' })
  finishedAt!: Date | null;
}

export class NotificationPageResponse {
  @ApiProperty({ type: [NotificationResponse], description: 'Oldest first' })
  items!: NotificationResponse[];

  @ApiProperty({ description: 'Pass as `cursor` for the next page; null on the last page', type: String, nullable: true })
  nextCursor!: string | null;
}
