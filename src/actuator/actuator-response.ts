import type { Request, Response } from 'express';
import { recordResponseError } from '../common/http/response-error.js';
import { httpStatusOf, type SpringStatus } from './health/spring-health.js';

/** Spring Boot 3's actuator media type; it answers plain application/json only when a client asks for that. */
export const ACTUATOR_V3_JSON = 'application/vnd.spring-boot.actuator.v3+json';

/** Sets what Spring sets on an actuator answer (content type, and 503 for a failed health status); returns the body. */
export function actuatorBody<T extends object>(request: Request, response: Response, body: T & { status?: SpringStatus }): T {
  response.type(request.accepts([ACTUATOR_V3_JSON, 'application/json']) || ACTUATOR_V3_JSON);
  if (body.status !== undefined) {
    const status = httpStatusOf(body.status);
    response.status(status);
    if (status >= 400) recordResponseError(response, { message: healthProblem(body) });
  }
  return body;
}

/** For the request log line: the status and, for the whole health, the components that are not UP. */
function healthProblem(body: { status?: SpringStatus; components?: unknown }): string {
  const components = Object.entries((body.components ?? {}) as Record<string, { status?: string }>)
    .filter(([, component]) => component?.status !== 'UP')
    .map(([name, component]) => `${name} ${component?.status}`);
  return `Health status is ${body.status}${components.length > 0 ? `: ${components.join(', ')}` : ''}`;
}
