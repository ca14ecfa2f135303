import { ApiProperty } from '@nestjs/swagger';

/** A webhook endpoint as the API shows it; the secret is never shown again after create and rotate. */
export class WebhookResponse {
  @ApiProperty({ type: 'integer', format: 'int64', example: 3 })
  id: number;

  @ApiProperty({ example: 'https://hooks.example.com/tickets' })
  url: string;

  @ApiProperty({ type: String, nullable: true, example: 'Chat notifications' })
  description: string | null;

  @ApiProperty({ description: 'Empty: every kind', type: [String], example: ['CREATED', 'UPDATED'] })
  eventTypes: string[];

  @ApiProperty({ example: true })
  enabled: boolean;

  @ApiProperty({ description: 'Why it is disabled; null while enabled', type: String, nullable: true, example: null })
  disabledReason: string | null;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-22T20:37:14.123Z' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-22T20:37:14.123Z' })
  updatedAt: Date;
}

/** The answer to create and rotate-secret: the endpoint and its new secret, shown this once. */
export class WebhookSecretResponse extends WebhookResponse {
  @ApiProperty({
    description: 'The signing secret (Standard Webhooks: `whsec_` and base64); shown only in this answer',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret: string;
}

/** One page of endpoints, oldest first. */
export class WebhookPageResponse {
  @ApiProperty({ type: [WebhookResponse] })
  items: WebhookResponse[];

  @ApiProperty({ description: 'Pass as `cursor` for the next page; null on the last page', type: String, nullable: true, example: null })
  nextCursor: string | null;
}
