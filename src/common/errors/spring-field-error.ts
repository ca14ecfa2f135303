import type { ValidationError } from 'class-validator';
import type { SpringConstraintContext } from '../validation/spring-constraints.js';

/** One element of `errors[]` in Spring's 400 body, keys in Spring's order. */
export interface SpringFieldError {
  codes: string[];
  arguments: unknown[];
  defaultMessage: string;
  objectName: string;
  field: string;
  rejectedValue: unknown;
  bindingFailure: boolean;
  code: string;
}

export function springFieldError(
  objectName: string,
  field: string,
  code: string,
  javaType: string,
  attributes: unknown[],
  defaultMessage: string,
  rejectedValue: unknown,
): SpringFieldError {
  return {
    codes: [`${code}.${objectName}.${field}`, `${code}.${field}`, `${code}.${javaType}`, code],
    arguments: [{ codes: [`${objectName}.${field}`, field], arguments: null, defaultMessage: field, code: field }, ...attributes],
    defaultMessage,
    objectName,
    field,
    rejectedValue: rejectedValue === undefined ? null : rejectedValue,
    bindingFailure: code === 'typeMismatch',
    code,
  };
}

/** Flattens class-validator's result into Spring field errors, in the order the DTO declares its fields. */
export function toSpringFieldErrors(objectName: string, errors: ValidationError[]): SpringFieldError[] {
  return errors.flatMap((error) =>
    Object.entries(error.constraints ?? {}).map(([code, message]) => {
      const context = (error.contexts?.[code] ?? { javaType: 'java.lang.Object', attributes: [] }) as SpringConstraintContext;
      return springFieldError(objectName, error.property, code, context.javaType, context.attributes, message, error.value);
    }),
  );
}
