import { BadRequestException, type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { toSpringFieldErrors } from '../errors/spring-field-error.js';
import { ValidationFailedException } from '../errors/validation-failed.exception.js';

/** Keys that could reach an object's prototype if they were ever copied onto one. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Validates request bodies against their DTO class and reports failures in Spring's shape.
 * A body that is not a JSON object (array, string, number) is rejected before any mapping.
 */
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidUnknownValues: true,
      // The target tells which DTO failed: Spring names the object after its class (ticketRequest).
      validationError: { target: true, value: true },
      exceptionFactory: (errors) => {
        const objectName = lowerFirst(errors[0]?.target?.constructor.name ?? 'request');
        return new ValidationFailedException(objectName, toSpringFieldErrors(objectName, errors));
      },
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body' || !metadata.metatype || !this.toValidate(metadata)) return value;
    // The body parser leaves a request without a body (no Content-Length, no Transfer-Encoding) undefined and
    // parses Content-Length: 0 to {}; both are an empty body, whose missing fields validation names.
    if (value === undefined) value = {};
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new BadRequestException('JSON parse error: the request body must be a JSON object');
    }
    const safe = Object.fromEntries(Object.entries(value).filter(([key]) => !FORBIDDEN_KEYS.has(key)));
    return super.transform(safe, metadata);
  }
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}
