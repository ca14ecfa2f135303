import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsJsonString, NotBlank, Size } from '../../common/validation/spring-constraints.js';
import { WEBHOOK_EVENT_TYPES } from '../webhook-message.js';
import { IsEventTypeList, KnownEventTypes } from './webhook-constraints.js';

export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;

/** Body of a new webhook endpoint. */
export class WebhookRequest {
  @ApiProperty({
    description:
      'Where to POST events: https:// to a public address (http:// and private addresses only when WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true); no credentials, whitespace or control characters in it, a port of 1-65535. Kept and shown as the WHATWG URL parser serialises it',
    example: 'https://hooks.example.com/tickets',
    maxLength: WEBHOOK_URL_MAX_LENGTH,
  })
  @IsJsonString()
  @NotBlank('URL is required')
  @Size(WEBHOOK_URL_MAX_LENGTH)
  url: string;

  @ApiPropertyOptional({
    description: 'The event kinds to send; empty or absent: all of them (kinds added later included)',
    type: [String],
    items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
    example: ['CREATED', 'UPDATED'],
    nullable: true,
  })
  @IsEventTypeList()
  @KnownEventTypes()
  eventTypes?: string[] | null;

  @ApiPropertyOptional({
    description: 'What the endpoint is for',
    example: 'Chat notifications',
    type: String,
    nullable: true,
    maxLength: 500,
  })
  @IsJsonString()
  @Size(WEBHOOK_DESCRIPTION_MAX_LENGTH)
  description?: string | null;
}
