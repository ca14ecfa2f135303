/** Scopes of the ticket API; a write scope also grants reading. */
export const SCOPES = {
  read: 'tickets.read',
  write: 'tickets.write',
  /** Health details under `show-details=when-authorized`. */
  actuator: 'actuator.read',
} as const;

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * What anyone may call without a token: the actuator (probes have no token; health hides its details itself),
 * the API documents with Swagger UI, and the event contract it links to. Case-insensitive, as Express routes are.
 */
const ANONYMOUS = /^\/(?:actuator|v3\/api-docs|swagger-ui|asyncapi\.(?:yaml|json)$)(?:[/.?]|$)/i;

export interface ScopeRequirement {
  /** Scopes any one of which admits the request. */
  anyOf: string[];
  /** The scope named in an insufficient_scope challenge. */
  name: string;
}

/**
 * The one place that says what a request needs (Spring's authorizeHttpRequests), deny by default: every path but
 * the anonymous ones needs a token, writes (POST, PUT, PATCH, DELETE) with `tickets.write`, anything else with
 * `tickets.read` or `tickets.write`. Undefined: no token needed.
 */
export function requiredScopes(method: string, path: string): ScopeRequirement | undefined {
  if (ANONYMOUS.test(path)) return undefined;
  if (WRITE_METHODS.has(method.toUpperCase())) return { anyOf: [SCOPES.write], name: SCOPES.write };
  return { anyOf: [SCOPES.read, SCOPES.write], name: SCOPES.read };
}
