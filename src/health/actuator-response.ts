import type { Request, Response } from 'express';
import { httpStatusOf, type SpringStatus } from './spring-health.js';

/** Spring Boot 3's actuator media type; it answers plain application/json only when a client asks for that. */
export const ACTUATOR_V3_JSON = 'application/vnd.spring-boot.actuator.v3+json';

/** Sets what Spring sets on an actuator answer (content type, and 503 for a failed health status); returns the body. */
export function actuatorBody<T extends object>(request: Request, response: Response, body: T & { status?: SpringStatus }): T {
  response.type(request.accepts([ACTUATOR_V3_JSON, 'application/json']) || ACTUATOR_V3_JSON);
  if (body.status !== undefined) response.status(httpStatusOf(body.status));
  return body;
}
