import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { IsJsonBoolean, IsJsonString, NotBlank, NotNull, Size } from '../../common/validation/spring-constraints.js';
import { WEBHOOK_EVENT_TYPES } from '../webhook-message.js';
import { IsEventTypeList, KnownEventTypes } from './webhook-constraints.js';
import { WEBHOOK_DESCRIPTION_MAX_LENGTH, WEBHOOK_URL_MAX_LENGTH } from './webhook-request.dto.js';

const present = (field: keyof WebhookPatch) => ValidateIf((patch: WebhookPatch) => patch[field] !== undefined);

/** Body of PATCH: the fields given replace, the others stay (RFC 7396). `enabled: true` also ends a failure streak. */
export class WebhookPatch {
  @ApiPropertyOptional({
    description: 'As on create; checked again',
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    example: 'https://hooks.example.com/v2',
  })
  @present('url')
  @IsJsonString()
  @NotBlank('URL is required')
  @Size(WEBHOOK_URL_MAX_LENGTH)
  url?: string;

  @ApiPropertyOptional({
    description: 'The event kinds to send; empty or null: all',
    type: [String],
    items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
    nullable: true,
  })
  @IsEventTypeList()
  @KnownEventTypes()
  eventTypes?: string[] | null;

  @ApiPropertyOptional({ description: 'false stops deliveries (pending ones wait); true resumes them', example: true })
  @present('enabled')
  @IsJsonBoolean()
  @NotNull('java.lang.Boolean', 'enabled must be true or false')
  enabled?: boolean;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH })
  @IsJsonString()
  @Size(WEBHOOK_DESCRIPTION_MAX_LENGTH)
  description?: string | null;
}
