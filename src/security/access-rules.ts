/** Scopes of the ticket API; a write scope also grants reading. */
export const SCOPES = {
  read: 'tickets.read',
  write: 'tickets.write',
  /** Health details under `show-details=when-authorized`. */
  actuator: 'actuator.read',
  /** Webhook endpoints, their secrets and deliveries: every method; the ticket scopes do not grant it. */
  webhooks: 'webhooks.manage',
  /** Acts for one person (the token's email claim), who sees only their tickets: src/people/visibility.ts. */
  requester: 'tickets.requester',
  /** Organizations, their domains, members and sharing. */
  organizations: 'organizations.manage',
  /** Handing in raw mail (POST /api/v2/inbound-email): what an MTA's pipe or a provider's hook holds, nothing more. */
  mailInbound: 'mail.inbound',
  /** Defining custom fields (reading their definitions needs only a ticket scope). */
  fields: 'fields.manage',
} as const;

/** Whether a token's scopes make it a requester's: tickets.requester without either agent scope. */
export function isRequesterToken(scopes: readonly string[]): boolean {
  return scopes.includes(SCOPES.requester) && !scopes.includes(SCOPES.read) && !scopes.includes(SCOPES.write);
}

/** Webhook management: it reveals signing secrets and points the service at URLs, so it has a scope of its own. */
const WEBHOOKS = /^\/api\/v2\/webhooks(?:\/|$)/i;
const ORGANIZATIONS = /^\/api\/v2\/organizations(?:\/|$)/i;
const INBOUND_EMAIL = /^\/api\/v2\/inbound-email\/?$/i;
const FIELDS = /^\/api\/v2\/fields(?:\/|$)/i;

/** What a requester token may read: the ticket lists, each ticket with its sub-resources (the gate decides which), the change feed. */
const REQUESTER_READS = /^\/api\/(?:(?:v2\/)?tickets(?:\/|$)|v2\/changes\/?$)/i;

/** What a requester token may write (the services judge the rest): a ticket, a comment, an attachment, a ticket's PATCH. */
const REQUESTER_WRITES: ReadonlyArray<[string, RegExp]> = [
  ['POST', /^\/api\/(?:v2\/)?tickets\/?$/i],
  ['POST', /^\/api\/(?:v2\/)?tickets\/[^/]+\/(?:comments|attachments)\/?$/i],
  ['PATCH', /^\/api\/(?:v2\/)?tickets\/[^/]+\/?$/i],
];

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
 * the anonymous ones needs a token, /api/v2/webhooks `webhooks.manage` and /api/v2/organizations `organizations.manage`
 * for every method, /api/v2/inbound-email `mail.inbound`, writes of /api/v2/fields `fields.manage` (its reads also a ticket scope), writes (POST, PUT, PATCH, DELETE) `tickets.write`, anything else `tickets.read` or `tickets.write`.
 * `tickets.requester` admits the reads of tickets and their sub-resources and the writes of REQUESTER_WRITES, no more
 * (what it then sees and may change: src/people/). Undefined: no token needed.
 */
export function requiredScopes(method: string, path: string): ScopeRequirement | undefined {
  if (ANONYMOUS.test(path)) return undefined;
  if (WEBHOOKS.test(path)) return { anyOf: [SCOPES.webhooks], name: SCOPES.webhooks };
  if (ORGANIZATIONS.test(path)) return { anyOf: [SCOPES.organizations], name: SCOPES.organizations };
  if (INBOUND_EMAIL.test(path)) return { anyOf: [SCOPES.mailInbound], name: SCOPES.mailInbound };
  const verb = method.toUpperCase();
  if (FIELDS.test(path)) {
    return WRITE_METHODS.has(verb)
      ? { anyOf: [SCOPES.fields], name: SCOPES.fields }
      : { anyOf: [SCOPES.fields, SCOPES.read, SCOPES.write], name: SCOPES.read };
  }
  if (WRITE_METHODS.has(verb)) {
    const requester = REQUESTER_WRITES.some(([allowed, pattern]) => allowed === verb && pattern.test(path));
    return { anyOf: requester ? [SCOPES.write, SCOPES.requester] : [SCOPES.write], name: SCOPES.write };
  }
  return {
    anyOf: REQUESTER_READS.test(path) ? [SCOPES.read, SCOPES.write, SCOPES.requester] : [SCOPES.read, SCOPES.write],
    name: SCOPES.read,
  };
}
