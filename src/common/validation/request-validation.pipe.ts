import { BadRequestException, type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { toSpringFieldErrors } from '../errors/spring-field-error.js';
import { ValidationFailedException } from '../errors/validation-failed.exception.js';

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
    return super.transform(knownFields(value, metadata.metatype), metadata);
  }
}

/**
 * The body's fields that the DTO declares, which are all whitelisting would keep. Picked before class-transformer
 * sees the body: it takes time quadratic in an object's number of keys (80,000 unknown keys block the process for
 * seconds), and unknown keys such as `__proto__` never reach an object of ours.
 */
function knownFields(body: object, metatype: ArgumentMetadata['metatype'] & object): Record<string, unknown> {
  const known = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(metatype, '', false, false)
      .map((rule) => rule.propertyName),
  );
  return Object.fromEntries(
    [...known].filter((field) => Object.hasOwn(body, field)).map((field) => [field, (body as Record<string, unknown>)[field]]),
  );
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}
