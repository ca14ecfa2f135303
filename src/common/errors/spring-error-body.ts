import { STATUS_CODES } from 'node:http';
import type { SpringFieldError } from './spring-field-error.js';

/** Spring Boot's error body, keys in Spring's order; `message` and `errors` only where there is one. */
export interface SpringErrorBody {
  timestamp: string;
  status: number;
  error: string;
  message?: string;
  errors?: SpringFieldError[];
  path: string;
}

export function springErrorBody(
  status: number,
  path: string,
  message?: string,
  errors?: SpringFieldError[],
  now = new Date(),
): SpringErrorBody {
  return {
    timestamp: springTimestamp(now),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    ...(message ? { message } : {}),
    ...(errors ? { errors } : {}),
    path,
  };
}

/** Spring writes `2024-01-15T10:30:00.123+00:00`: milliseconds and an explicit offset. */
function springTimestamp(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}
