import { ValidateBy } from 'class-validator';
import type { SpringConstraintContext } from '../../common/validation/spring-constraints.js';
import { WEBHOOK_EVENT_TYPES } from '../webhook-message.js';

/*
 * Constraints of a webhook's body beyond the shared ones, reported with Spring's codes like every field error.
 */

function constraint(name: string, context: SpringConstraintContext, validate: (value: unknown) => boolean, message: string) {
  return ValidateBy({ name, validator: { validate } }, { message, context });
}

/** A JSON array of event kinds (or absent/null: every kind). */
export const IsEventTypeList = () =>
  constraint(
    'typeMismatch',
    { javaType: 'java.util.List', attributes: [] },
    (value) => value === undefined || value === null || (Array.isArray(value) && value.every((item) => typeof item === 'string')),
    'Failed to convert value to required type: a list of event types',
  );

/** Each kind one the service records. */
export const KnownEventTypes = () =>
  constraint(
    'UnknownEventType',
    { javaType: 'java.util.List', attributes: [] },
    (value) => !Array.isArray(value) || value.every((item) => typeof item !== 'string' || WEBHOOK_EVENT_TYPES.includes(item)),
    `unknown event type; accepted values: [${WEBHOOK_EVENT_TYPES.join(', ')}]`,
  );
