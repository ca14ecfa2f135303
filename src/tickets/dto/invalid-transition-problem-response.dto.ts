import { ApiProperty } from '@nestjs/swagger';
import { ProblemDetailResponse } from '../../common/errors/problem-detail-response.dto.js';
import { TicketStatus } from '../ticket-status.enum.js';
import { INVALID_TRANSITION_TYPE } from '../ticket-workflow.js';

/** OpenAPI schema of v2's 409 for a status move the workflow does not allow. */
export class InvalidTransitionProblemResponse extends ProblemDetailResponse {
  @ApiProperty({ enum: [INVALID_TRANSITION_TYPE], example: INVALID_TRANSITION_TYPE })
  declare type: string;

  @ApiProperty({ example: 'Invalid status transition' })
  declare title: string;

  @ApiProperty({ description: 'The status the ticket has', enum: TicketStatus, enumName: 'TicketStatus', example: TicketStatus.OPEN })
  from: TicketStatus;

  @ApiProperty({
    description: 'The status the request asked for',
    enum: TicketStatus,
    enumName: 'TicketStatus',
    example: TicketStatus.CLOSED,
  })
  to: TicketStatus;

  @ApiProperty({
    description: 'The statuses allowed from `from`, itself included',
    enum: TicketStatus,
    enumName: 'TicketStatus',
    isArray: true,
    example: [TicketStatus.OPEN, TicketStatus.IN_PROGRESS],
  })
  allowed: TicketStatus[];
}
