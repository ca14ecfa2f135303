import type { HttpResponse } from './http-client.js';

const SPRING_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
const ALLOWED_KEYS = ['timestamp', 'status', 'error', 'message', 'errors', 'path'];

/**
 * Why a response is not an error in Spring Boot's shape (decision 2), or undefined when it is: JSON content
 * type, keys in Spring's order, the status and reason phrase of the response itself, and `path` as sent.
 */
export function springErrorShapeProblem(response: HttpResponse, path?: string): string | undefined {
  if (!/^application\/json/.test(String(response.headers['content-type']))) return `content-type ${response.headers['content-type']}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(response.body);
  } catch {
    return `body is not JSON: ${response.body.slice(0, 200)}`;
  }
  const keys = Object.keys(body);
  const ordered = ALLOWED_KEYS.filter((key) => keys.includes(key));
  if (keys.join() !== ordered.join()) return `keys ${keys.join()}`;
  if (!SPRING_TIMESTAMP.test(String(body.timestamp))) return `timestamp ${body.timestamp}`;
  if (body.status !== response.status) return `status ${body.status} in a ${response.status} response`;
  if (typeof body.error !== 'string' || body.error === '') return `error ${body.error}`;
  if ('message' in body && (typeof body.message !== 'string' || body.message === '')) return `message ${body.message}`;
  if (typeof body.path !== 'string' || (path !== undefined && body.path !== path)) return `path ${body.path}, expected ${path}`;
  return undefined;
}

/** Jest assertion form of springErrorShapeProblem. */
export function expectSpringError(response: HttpResponse, status: number, path?: string): Record<string, any> {
  expect({ status: response.status, problem: springErrorShapeProblem(response, path) }).toEqual({ status, problem: undefined });
  return JSON.parse(response.body);
}
