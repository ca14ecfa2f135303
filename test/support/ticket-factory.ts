import { randomBytes } from 'node:crypto';
import type request from 'supertest';
import type { Response } from 'supertest';

export interface TicketRequestBody {
  title?: unknown;
  description?: unknown;
  status?: unknown;
  priority?: unknown;
  requesterEmail?: unknown;
  assignedTo?: unknown;
  [field: string]: unknown;
}

/** A valid create/replace body; overrides replace fields, `undefined` removes one. */
export function buildTicketRequest(overrides: TicketRequestBody = {}): TicketRequestBody {
  const body: TicketRequestBody = {
    title: 'VPN drops every hour',
    description: 'The VPN client disconnects at the top of every hour.',
    status: 'OPEN',
    priority: 'HIGH',
    requesterEmail: `user-${randomBytes(3).toString('hex')}@example.com`,
    assignedTo: 'network-team',
    ...overrides,
  };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return body;
}

/** Creates a ticket through the API (v1 unless `collection` says otherwise) and answers the 201 response. */
export async function createTicket(
  http: ReturnType<typeof request>,
  overrides: TicketRequestBody = {},
  collection = '/api/tickets',
): Promise<Response> {
  return http.post(collection).send(buildTicketRequest(overrides)).expect(201);
}
