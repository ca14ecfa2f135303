import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { Email, IsEnumMember, IsJsonString, NotBlank, NotNull, Size } from '../../common/validation/spring-constraints.js';
import { TicketPriority } from '../ticket-priority.enum.js';
import { TicketStatus } from '../ticket-status.enum.js';

/** Only fields the patch holds are judged: an absent one is kept as it is (RFC 7396). */
const present = (field: keyof TicketPatch) => ValidateIf((patch: TicketPatch) => patch[field] !== undefined);

/**
 * Body of PATCH, a JSON merge patch (RFC 7396): fields present replace, fields absent are kept, `null` clears
 * `assignedTo`. A present field obeys the same constraints, with the same codes and messages, as in a
 * TicketRequest: `null` or blank on a required field is NotNull/NotBlank.
 */
export class TicketPatch {
  @ApiPropertyOptional({
    description: 'Short summary; not blank, not null',
    example: 'VPN drops every hour',
    maxLength: 255,
    pattern: '\\S',
  })
  @present('title')
  @IsJsonString()
  @NotBlank('Title is required')
  @Size(255)
  title?: string;

  @ApiPropertyOptional({ description: 'What happened; not blank, not null', maxLength: 2000, pattern: '\\S' })
  @present('description')
  @IsJsonString()
  @NotBlank('Description is required')
  @Size(2000)
  description?: string;

  @ApiPropertyOptional({
    description: 'Exact case; not null',
    enum: TicketStatus,
    enumName: 'TicketStatus',
    example: TicketStatus.RESOLVED,
  })
  @present('status')
  @IsEnumMember(TicketStatus, 'TicketStatus')
  @NotNull('TicketStatus', 'Status is required')
  status?: TicketStatus;

  @ApiPropertyOptional({ description: 'Exact case; not null', enum: TicketPriority, enumName: 'TicketPriority' })
  @present('priority')
  @IsEnumMember(TicketPriority, 'TicketPriority')
  @NotNull('TicketPriority', 'Priority is required')
  priority?: TicketPriority;

  @ApiPropertyOptional({ description: 'Who asked; a well-formed e-mail address; not null', format: 'email', maxLength: 255 })
  @present('requesterEmail')
  @IsJsonString()
  @NotBlank('Requester email is required')
  @Email('Invalid email format')
  @Size(255)
  requesterEmail?: string;

  @ApiPropertyOptional({
    description: 'Person or group working on it; null clears it',
    example: 'desk-2',
    type: String,
    maxLength: 255,
    nullable: true,
  })
  @IsJsonString()
  @Size(255)
  assignedTo?: string | null;
}
