import { Email, IsEnumMember, IsJsonString, NotBlank, NotNull, Size } from '../../common/validation/spring-constraints.js';
import { TicketPriority } from '../ticket-priority.enum.js';
import { TicketStatus } from '../ticket-status.enum.js';

/** Body of create and full-replace. Fields the server owns (id, timestamps) are not part of it and are dropped. */
export class TicketRequest {
  @IsJsonString()
  @NotBlank('Title is required')
  @Size(255)
  title: string;

  @IsJsonString()
  @NotBlank('Description is required')
  @Size(2000)
  description: string;

  @IsEnumMember(TicketStatus, 'TicketStatus')
  @NotNull('TicketStatus', 'Status is required')
  status: TicketStatus;

  @IsEnumMember(TicketPriority, 'TicketPriority')
  @NotNull('TicketPriority', 'Priority is required')
  priority: TicketPriority;

  @IsJsonString()
  @NotBlank('Requester email is required')
  @Email('Invalid email format')
  @Size(255)
  requesterEmail: string;

  @IsJsonString()
  @Size(255)
  assignedTo?: string | null;
}
