import { ApiResponse } from '@nestjs/swagger';
import { springErrorBody } from './spring-error-body.js';
import { SpringErrorResponse } from './spring-error-response.dto.js';
import type { SpringFieldError } from './spring-field-error.js';

export interface ErrorExample {
  summary: string;
  path: string;
  message?: string;
  errors?: SpringFieldError[];
}

const EXAMPLE_TIME = new Date('2026-11-22T20:37:14.123Z');

/**
 * Documents an error response in Spring's error shape. Examples are built by springErrorBody, the same
 * function that renders real errors, so they cannot drift from what the service sends.
 */
export function ApiErrorResponse(status: number, description: string, ...examples: ErrorExample[]): MethodDecorator & ClassDecorator {
  return ApiResponse({
    status,
    description,
    type: SpringErrorResponse,
    ...(examples.length > 0 && {
      examples: Object.fromEntries(
        examples.map((example) => [
          example.summary,
          { summary: example.summary, value: springErrorBody(status, example.path, example.message, example.errors, EXAMPLE_TIME) },
        ]),
      ),
    }),
  });
}
