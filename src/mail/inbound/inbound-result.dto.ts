import { ApiProperty } from '@nestjs/swagger';

export class InboundResultResponse {
  @ApiProperty({
    enum: ['created', 'commented', 'duplicate', 'ignored'],
    description:
      'created: a new ticket; commented: a public comment on the ticket it answers; duplicate: this Message-ID was handled before (nothing new); ignored: automatic mail, a bounce, the desk itself, a sender over its limit, or an unreadable message (see reason)',
    example: 'created',
  })
  outcome!: 'created' | 'commented' | 'duplicate' | 'ignored';

  @ApiProperty({ type: 'integer', format: 'int64', nullable: true, description: 'The ticket it made or commented on', example: 42 })
  ticketId!: number | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why it was ignored', example: null })
  reason!: string | null;
}
