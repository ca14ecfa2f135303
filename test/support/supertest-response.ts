import type { Response } from 'supertest';
import type { HttpResponse } from './http-client.js';

/** A supertest response in the form the error-shape checks (expectSpringError, expectProblem) take. */
export function asHttpResponse(response: Response): HttpResponse {
  return { status: response.status, headers: response.headers, body: response.text };
}
