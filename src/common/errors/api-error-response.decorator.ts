import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { PROBLEM_JSON, problemDetails, type ProblemType } from './problem-details.js';
import { ProblemDetailResponse } from './problem-detail-response.dto.js';
import { springErrorBody } from './spring-error-body.js';
import { SpringErrorResponse } from './spring-error-response.dto.js';
import type { SpringFieldError } from './spring-field-error.js';

export interface ErrorExample {
  summary: string;
  path: string;
  message?: string;
  errors?: SpringFieldError[];
  /** A problem type of the error's own, which shows in v2's rendering only. */
  problem?: ProblemType;
}

export const EXAMPLE_TIME = new Date('2026-11-22T20:37:14.123Z');

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

/**
 * Documents an error response as an RFC 9457 problem (application/problem+json), the shape of v2. Examples are
 * built by problemDetails from the same inputs as the Spring ones, as the error filter builds both.
 */
export function ApiProblemResponse(status: number, description: string, ...examples: ErrorExample[]): MethodDecorator & ClassDecorator {
  return ApiTypedProblemResponse(ProblemDetailResponse, status, description, ...examples);
}

/**
 * The same for a problem type with members of its own, whose schema `model` (a ProblemDetailResponse) gives; several
 * models when one status has several problems (a 409 of a workflow and one of an Idempotency-Key in use).
 */
export function ApiTypedProblemResponse(
  model: Type<ProblemDetailResponse> | Type<ProblemDetailResponse>[],
  status: number,
  description: string,
  ...examples: ErrorExample[]
): MethodDecorator & ClassDecorator {
  const models = Array.isArray(model) ? model : [model];
  const content = {
    schema: models.length === 1 ? { $ref: getSchemaPath(models[0]) } : { oneOf: models.map((one) => ({ $ref: getSchemaPath(one) })) },
    ...(examples.length > 0 && {
      examples: Object.fromEntries(
        examples.map((example) => [
          example.summary,
          { summary: example.summary, value: problemDetails(status, example.path, example.message, example.errors, example.problem) },
        ]),
      ),
    }),
  };
  return applyDecorators(ApiExtraModels(...models), ApiResponse({ status, description, content: { [PROBLEM_JSON]: content } }));
}
