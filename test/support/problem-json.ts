import type { HttpResponse } from './http-client.js';

const KEYS = ['type', 'title', 'status', 'detail', 'instance', 'errors'];
const ERROR_KEYS = ['field', 'code', 'message', 'rejectedValue'];

/** A problem type of the service's own (beyond validation), which may add members after RFC 9457's. */
const OWN_PROBLEM_TYPE = /^urn:problem-type:ticket-service\/[a-z-]+$/;

/**
 * Why a response is not an RFC 9457 problem as v2 sends it, or undefined when it is: problem+json content
 * type, members in order, the response's own status, `instance` the path as sent, and `errors` (with its
 * four members) exactly on a validation problem; members of its own only on a problem type of the service's own.
 */
export function problemShapeProblem(response: HttpResponse, path?: string): string | undefined {
  if (!/^application\/problem\+json/.test(String(response.headers['content-type'])))
    return `content-type ${response.headers['content-type']}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(response.body);
  } catch {
    return `body is not JSON: ${response.body.slice(0, 200)}`;
  }
  const keys = Object.keys(body);
  const standard = keys.filter((key) => KEYS.includes(key));
  const ownMembers = keys.slice(standard.length);
  if (standard.join() !== KEYS.filter((key) => keys.includes(key)).join() || standard.length < 5) return `keys ${keys.join()}`;
  if (ownMembers.some((key) => KEYS.includes(key))) return `keys ${keys.join()}`;
  if (body.status !== response.status) return `status ${body.status} in a ${response.status} response`;
  if (typeof body.title !== 'string' || typeof body.detail !== 'string' || body.detail === '')
    return `title ${body.title}, detail ${body.detail}`;
  if (typeof body.instance !== 'string' || (path !== undefined && body.instance !== path))
    return `instance ${body.instance}, expected ${path}`;
  const ownType = OWN_PROBLEM_TYPE.test(String(body.type));
  if (ownMembers.length > 0 && !ownType) return `members ${ownMembers.join()} on a problem of type ${body.type}`;
  const validation = body.type === 'urn:problem-type:ticket-service:validation-failed';
  if (!validation && !ownType && body.type !== 'about:blank') return `type ${body.type}`;
  if (validation !== 'errors' in body) return `type ${body.type} with errors ${JSON.stringify(body.errors)}`;
  if (validation && !(body.errors as Array<Record<string, unknown>>).every((e) => Object.keys(e).join() === ERROR_KEYS.join())) {
    return `errors ${JSON.stringify(body.errors)}`;
  }
  return undefined;
}

export function expectProblem(response: HttpResponse, status: number, path?: string): Record<string, any> {
  expect({ status: response.status, problem: problemShapeProblem(response, path) }).toEqual({ status, problem: undefined });
  return JSON.parse(response.body);
}
