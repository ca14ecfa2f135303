import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import { domainOf } from '../common/validation/email-address.js';
import { OrganizationsRepository } from './organizations.repository.js';
import type { RequesterViewer } from '../common/context/viewer.js';
import { type TicketAccess, visibleTicketIds } from './visibility.js';

/** A requester's eyes for one request, and whether they reach one ticket, by the one rule (visibility.ts). */
@Injectable()
export class TicketAccessRepository {
  constructor(
    private readonly database: Database,
    private readonly organizations: OrganizationsRepository,
  ) {}

  /** The viewer of a requester token's request: their address and their organization as it is now. */
  async requester(email: string): Promise<RequesterViewer> {
    const domain = domainOf(email);
    return { kind: 'requester', email, domain, organization: await this.organizations.ofRequester(email, domain) };
  }

  /** Whether the requester may `access` the ticket (false too for a ticket that does not exist). */
  async allows(viewer: RequesterViewer, ticketId: string, access: TicketAccess, manager: Queryable = this.database): Promise<boolean> {
    const visible = visibleTicketIds(viewer, access);
    const rows = (await manager.query(`SELECT 1 AS allowed FROM tickets WHERE id = ? AND id IN (${visible.sql})`, [
      ticketId,
      ...visible.params,
    ])) as unknown[];
    return rows.length > 0;
  }
}
