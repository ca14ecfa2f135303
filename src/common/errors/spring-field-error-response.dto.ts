import { ApiProperty } from '@nestjs/swagger';
import { FIELD_ERROR_CODES } from './field-error-codes.js';
import type { SpringFieldError } from './spring-field-error.js';

/** OpenAPI schema of one `errors[]` element of a 400 (the shape itself is built by springFieldError). */
export class SpringFieldErrorResponse implements SpringFieldError {
  @ApiProperty({
    description: 'Message codes, most specific first',
    example: ['NotBlank.ticketRequest.title', 'NotBlank.title', 'NotBlank.java.lang.String', 'NotBlank'],
  })
  codes: string[];

  @ApiProperty({
    description: "The field's own resolvable first, then the constraint's attributes in alphabetical order (Size: max, min)",
    type: 'array',
    items: {},
    example: [{ codes: ['ticketRequest.title', 'title'], arguments: null, defaultMessage: 'title', code: 'title' }],
  })
  arguments: unknown[];

  @ApiProperty({ description: 'The message declared for the constraint', example: 'Title is required' })
  defaultMessage: string;

  @ApiProperty({ description: 'The validated object', example: 'ticketRequest' })
  objectName: string;

  @ApiProperty({ description: 'The request field that failed', example: 'title' })
  field: string;

  @ApiProperty({
    description: 'The value that was sent, of any JSON type (null when the field was missing)',
    example: '',
    oneOf: ['string', 'number', 'boolean', 'object', 'array', 'null'].map((type) => ({ type })),
  })
  rejectedValue: unknown;

  @ApiProperty({ description: 'true when the value could not be converted at all (wrong JSON type, unknown enum value)', example: false })
  bindingFailure: boolean;

  @ApiProperty({
    description: 'The violated constraint',
    enum: [...FIELD_ERROR_CODES],
    example: 'NotBlank',
  })
  code: string;
}
