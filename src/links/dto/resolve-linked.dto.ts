import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { IsEnumMember, IsJsonString, NotBlank, NotNull, Size } from '../../common/validation/spring-constraints.js';
import { COMMENT_BODY_MAX_LENGTH } from '../../comments/dto/comment-request.dto.js';
import { TicketStatus } from '../../tickets/ticket-status.enum.js';

/** Body of POST /api/v2/tickets/{id}/resolve-linked: where the problem's incidents move, and what they are told. */
export class ResolveLinkedRequest {
  @ApiProperty({ enum: TicketStatus, enumName: 'TicketStatus', description: 'The status each incident moves to', example: 'RESOLVED' })
  @NotNull('TicketStatus')
  @IsEnumMember(TicketStatus, 'TicketStatus')
  status: TicketStatus;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'A public comment added to each incident that moved',
    maxLength: COMMENT_BODY_MAX_LENGTH,
    example: 'The switch in room 2 was replaced.',
  })
  @IsJsonString()
  @ValidateIf((request: ResolveLinkedRequest) => request.comment !== undefined && request.comment !== null)
  @NotBlank()
  @Size(COMMENT_BODY_MAX_LENGTH)
  comment?: string | null;
}

export class ResolvedIncident {
  @ApiProperty({ example: 42 })
  ticketId: number;

  @ApiProperty({ enum: ['moved', 'unchanged', 'failed'], description: 'Moved; already in that status; or refused (see `error`)' })
  outcome: 'moved' | 'unchanged' | 'failed';

  @ApiPropertyOptional({
    type: 'object',
    properties: { status: { type: 'integer' }, detail: { type: 'string' } },
    required: ['status', 'detail'],
    description: 'Why it failed, as problem+json would say it: `status` and `detail`',
    example: { status: 409, detail: 'Status transition from CLOSED to RESOLVED is not allowed' },
  })
  error?: { status: number; detail: string };

  @ApiPropertyOptional({
    type: 'object',
    properties: { status: { type: 'integer' }, detail: { type: 'string' } },
    required: ['status', 'detail'],
    description: 'The ticket moved, but its comment could not be added: why',
  })
  commentError?: { status: number; detail: string };
}

export class ResolveLinkedResponse {
  @ApiProperty({ type: [ResolvedIncident], description: 'Each ticket the problem causes, by id' })
  results: ResolvedIncident[];
}
