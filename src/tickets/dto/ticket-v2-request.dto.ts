import { ApiPropertyOptional } from '@nestjs/swagger';
import { CC_EMAILS_MAX, IsCcEmails } from '../../people/cc-emails.js';
import { IsTags, TAG_MAX_LENGTH, TAGS_MAX } from '../../tags/tags.js';
import { FIELD_VALUES_SCHEMA, IsFieldValues } from '../../fields/field-values.js';
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

const tagsProperty = (absent: string) =>
  ApiPropertyOptional({
    description:
      `Tags: each trimmed and lower-cased, 1 to ${TAG_MAX_LENGTH} letters, digits, '-', '_', '.' or ':'; at most ${TAGS_MAX}; ` +
      `repeats collapse; returned sorted. Set by agents only. ${absent}`,
    type: [String],
    example: ['network', 'site:berlin'],
    nullable: true,
  });

/** Body of v2 create and full replace: v1's fields, the participants and the tags (absent or null: none). */
export class TicketV2Request extends TicketRequest {
  @ccEmailsProperty()
  @IsCcEmails()
  ccEmails?: string[] | null;

  @tagsProperty('Absent or null: none')
  @IsTags()
  tags?: string[] | null;

  @ApiPropertyOptional({
    ...FIELD_VALUES_SCHEMA,
    description:
      'Custom field values by key (GET /api/v2/fields); every required field needs one. Absent or null: none. Set by agents only',
    nullable: true,
  })
  @IsFieldValues()
  fields?: Record<string, unknown> | null;
}

/** Body of v2 PATCH: v1's fields, the participants and the tags (a list replaces them; null: none; absent: unchanged). */
export class TicketV2Patch extends TicketPatch {
  @ccEmailsProperty()
  @IsCcEmails()
  ccEmails?: string[] | null;

  @tagsProperty('A list replaces them; null: none; absent: unchanged')
  @IsTags()
  tags?: string[] | null;

  @ApiPropertyOptional({
    ...FIELD_VALUES_SCHEMA,
    description: 'Custom field values by key, as a merge patch: a value replaces, null removes, absent keeps; null: none at all',
    nullable: true,
  })
  @IsFieldValues()
  fields?: Record<string, unknown> | null;
}
