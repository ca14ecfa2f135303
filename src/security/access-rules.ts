/** Scopes of the ticket API; a write scope also grants reading. */
export const SCOPES = {
  read: 'tickets.read',
  write: 'tickets.write',
  /** Health details under `show-details=when-authorized`. */
  actuator: 'actuator.read',
  /** Webhook endpoints, their secrets and deliveries: every method; the ticket scopes do not grant it. */
  webhooks: 'webhooks.manage',
} as const;

/** Webhook management: it reveals signing secrets and points the service at URLs, so it has a scope of its own. */
const WEBHOOKS = /^\/api\/v2\/webhooks(?:\/|$)/i;

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
 * the anonymous ones needs a token, /api/v2/webhooks `webhooks.manage` for every method, writes (POST, PUT, PATCH, DELETE) with `tickets.write`, anything else with
 * `tickets.read` or `tickets.write`. Undefined: no token needed.
 */
export function requiredScopes(method: string, path: string): ScopeRequirement | undefined {
  if (ANONYMOUS.test(path)) return undefined;
  if (WEBHOOKS.test(path)) return { anyOf: [SCOPES.webhooks], name: SCOPES.webhooks };
  if (WRITE_METHODS.has(method.toUpperCase())) return { anyOf: [SCOPES.write], name: SCOPES.write };
  return { anyOf: [SCOPES.read, SCOPES.write], name: SCOPES.read };
}
