import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Email, IsEnumMember, IsJsonString, NotBlank, NotNull, Size } from '../../common/validation/spring-constraints.js';
import { TicketPriority } from '../ticket-priority.enum.js';
import { TicketStatus } from '../ticket-status.enum.js';

/** Body of create and full-replace. Fields the server owns (id, timestamps) are not part of it and are dropped. */
export class TicketRequest {
  @ApiProperty({ description: 'Short summary; not blank', example: 'VPN drops every hour', maxLength: 255, pattern: '\\S' })
  @IsJsonString()
  @NotBlank('Title is required')
  @Size(255)
  title: string;

  @ApiProperty({
    description: 'What happened; not blank',
    example: 'The VPN client disconnects at the top of every hour.',
    maxLength: 2000,
    pattern: '\\S',
  })
  @IsJsonString()
  @NotBlank('Description is required')
  @Size(2000)
  description: string;

  @ApiProperty({ description: 'Exact case', enum: TicketStatus, enumName: 'TicketStatus', example: TicketStatus.OPEN })
  @IsEnumMember(TicketStatus, 'TicketStatus')
  @NotNull('TicketStatus', 'Status is required')
  status: TicketStatus;

  @ApiProperty({ description: 'Exact case', enum: TicketPriority, enumName: 'TicketPriority', example: TicketPriority.HIGH })
  @IsEnumMember(TicketPriority, 'TicketPriority')
  @NotNull('TicketPriority', 'Priority is required')
  priority: TicketPriority;

  @ApiProperty({
    description: 'Who asked; a well-formed e-mail address (a top-level domain is not required: user@localhost is accepted)',
    example: 'jane.doe@example.com',
    format: 'email',
    maxLength: 255,
  })
  @IsJsonString()
  @NotBlank('Requester email is required')
  @Email('Invalid email format')
  @Size(255)
  requesterEmail: string;

  @ApiPropertyOptional({
    description: 'Person or group working on it; null when absent',
    example: 'network-team',
    type: String,
    maxLength: 255,
    nullable: true,
  })
  @IsJsonString()
  @Size(255)
  assignedTo?: string | null;
}
