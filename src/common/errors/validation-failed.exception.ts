import { BadRequestException } from '@nestjs/common';
import type { SpringFieldError } from './spring-field-error.js';

export class ValidationFailedException extends BadRequestException {
  constructor(
    readonly objectName: string,
    readonly fieldErrors: SpringFieldError[],
  ) {
    super(`Validation failed for object='${objectName}'. Error count: ${fieldErrors.length}`);
  }
}
