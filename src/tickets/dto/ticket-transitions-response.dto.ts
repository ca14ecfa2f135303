import { ApiProperty } from '@nestjs/swagger';
import { TicketStatus } from '../ticket-status.enum.js';

/** Where a ticket may go next: its status and the statuses an update may set under the configured workflow. */
export class TicketTransitionsResponse {
  @ApiProperty({ enum: TicketStatus, enumName: 'TicketStatus', example: TicketStatus.IN_PROGRESS })
  status: TicketStatus;

  @ApiProperty({
    description:
      'The statuses a PUT or PATCH may set, the current one included, in the order of the enum; every status when TICKET_WORKFLOW=open',
    enum: TicketStatus,
    enumName: 'TicketStatus',
    isArray: true,
    example: [TicketStatus.IN_PROGRESS, TicketStatus.WAITING_ON_CUSTOMER, TicketStatus.RESOLVED, TicketStatus.CLOSED],
  })
  allowed: TicketStatus[];
}
