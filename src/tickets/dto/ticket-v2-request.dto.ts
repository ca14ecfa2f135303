import { ApiPropertyOptional } from '@nestjs/swagger';
import { CC_EMAILS_MAX, IsCcEmails } from '../../people/cc-emails.js';
import { TicketPatch } from './ticket-patch.dto.js';
import { TicketRequest } from './ticket-request.dto.js';

const ccEmailsProperty = () =>
  ApiPropertyOptional({
    description:
      'Participants: people who follow the ticket and, with a requester token, read it and comment on it (docs/security.md). ' +
      'Stored lower-cased, each once; set by agents only',
    type: [String],
    maxItems: CC_EMAILS_MAX,
    example: ['bob@example.com'],
    nullable: true,
  });

/** Body of v2 create and full replace: v1's fields and the participants (absent or null: none). */
export class TicketV2Request extends TicketRequest {
  @ccEmailsProperty()
  @IsCcEmails()
  ccEmails?: string[] | null;
}

/** Body of v2 PATCH: v1's fields and the participants (a list replaces them; null: none; absent: unchanged). */
export class TicketV2Patch extends TicketPatch {
  @ccEmailsProperty()
  @IsCcEmails()
  ccEmails?: string[] | null;
}
