import { ApiProperty } from '@nestjs/swagger';
import { FIELD_ERROR_CODES } from './field-error-codes.js';
import type { ProblemFieldError } from './problem-details.js';

/** OpenAPI schema of one `errors[]` element of a v2 validation problem (built by problemDetails). */
export class ProblemFieldErrorResponse implements ProblemFieldError {
  @ApiProperty({ description: 'The body field or query parameter that failed', example: 'status' })
  field: string;

  @ApiProperty({
    description: "The violated constraint, the same code as in v1's errors[]",
    enum: [...FIELD_ERROR_CODES],
    example: 'typeMismatch',
  })
  code: string;

  @ApiProperty({ description: 'What is wrong with it', example: "Failed to convert value to required type 'TicketStatus'" })
  message: string;

  @ApiProperty({
    description: 'The value that was sent, of any JSON type (null when the field was missing)',
    example: 'open',
    oneOf: ['string', 'number', 'boolean', 'object', 'array', 'null'].map((type) => ({ type })),
  })
  rejectedValue: unknown;
}
