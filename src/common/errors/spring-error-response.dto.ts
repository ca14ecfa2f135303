import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { SpringErrorBody } from './spring-error-body.js';
import { SpringFieldErrorResponse } from './spring-field-error-response.dto.js';

/** OpenAPI schema of Spring Boot's error body, which every 4xx and 5xx has (built by springErrorBody). */
export class SpringErrorResponse implements SpringErrorBody {
  @ApiProperty({ description: 'When the error happened, with milliseconds and offset', example: '2026-11-22T20:37:14.123+00:00' })
  timestamp: string;

  @ApiProperty({ description: 'The HTTP status', type: 'integer', example: 400 })
  status: number;

  @ApiProperty({ description: 'The reason phrase of the status', example: 'Bad Request' })
  error: string;

  @ApiPropertyOptional({
    description: 'What went wrong; absent when there is nothing to add',
    example: "Validation failed for object='ticketRequest'. Error count: 1",
  })
  message?: string;

  @ApiPropertyOptional({ description: 'One element per violated constraint; validation failures only', type: [SpringFieldErrorResponse] })
  errors?: SpringFieldErrorResponse[];

  @ApiProperty({ description: 'The request path, without the query', example: '/api/tickets' })
  path: string;
}
