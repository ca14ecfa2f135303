import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ProblemDetails } from './problem-details.js';
import { ProblemFieldErrorResponse } from './problem-field-error-response.dto.js';

/** OpenAPI schema of an RFC 9457 problem, the body of every v2 error (built by problemDetails). */
export class ProblemDetailResponse implements ProblemDetails {
  @ApiProperty({
    description: '`about:blank` (the status says it all), or the validation problem type, which adds `errors`',
    enum: ['about:blank', 'urn:problem-type:ticket-service:validation-failed'],
    example: 'about:blank',
  })
  type: string;

  @ApiProperty({ description: "The status's reason phrase, or `Validation failed`", example: 'Not Found' })
  title: string;

  @ApiProperty({ description: 'The HTTP status', type: 'integer', example: 404 })
  status: number;

  @ApiProperty({ description: 'What went wrong, the same text as `message` in a v1 error', example: 'Ticket not found with id: 42' })
  detail: string;

  @ApiProperty({ description: 'The request path, without the query', example: '/api/v2/tickets/42' })
  instance: string;

  @ApiPropertyOptional({
    description: 'One element per failed field or query parameter; validation problems only',
    type: [ProblemFieldErrorResponse],
  })
  errors?: ProblemFieldErrorResponse[];
}
