import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import { type KeysetPageRequest, keysetSql } from '../common/paging/keyset-page.js';
import type { OrganizationResponse } from './dto/organization-response.dto.js';
import type { ViewerOrganization } from '../common/context/viewer.js';

interface OrganizationRow {
  id: string | number;
  name: string;
  shared_tickets: number;
  shared_comments: number;
  created_at: Date;
  updated_at: Date;
}

/** What an organization stores besides its id and times; its lists in canonical form. */
export interface OrganizationFields {
  name: string;
  domains: string[];
  members: string[];
  sharedTickets: boolean;
  sharedComments: boolean;
}

/** A domain or address another organization already lists. */
export interface TakenEntry {
  field: 'domains' | 'members';
  value: string;
  organizationId: number;
}

const COLUMNS = 'id, name, shared_tickets, shared_comments, created_at, updated_at';

/** `organizations`, `organization_domains` and `organization_members`, in plain SQL. */
@Injectable()
export class OrganizationsRepository {
  constructor(private readonly database: Database) {}

  /**
   * The organization a requester belongs to: the one listing their address, else the one listing their domain. Read on
   * every request of a requester, so a change holds from the next request on, on every replica.
   */
  async ofRequester(email: string, domain: string): Promise<ViewerOrganization | null> {
    const [row] = await this.database.rows<OrganizationRow>(
      `SELECT ${COLUMNS} FROM organizations WHERE id = COALESCE(
         (SELECT organization_id FROM organization_members WHERE email = ?),
         (SELECT organization_id FROM organization_domains WHERE domain = ?))`,
      [email, domain],
    );
    return row ? { id: Number(row.id), sharedTickets: row.shared_tickets === 1, sharedComments: row.shared_comments === 1 } : null;
  }

  async insert(transaction: Queryable, fields: OrganizationFields, now: Date): Promise<number> {
    const { insertId } = (await transaction.query(
      'INSERT INTO organizations (name, shared_tickets, shared_comments, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      [fields.name, fields.sharedTickets, fields.sharedComments, now, now],
    )) as { insertId: number | string };
    await this.replaceLists(transaction, Number(insertId), fields);
    return Number(insertId);
  }

  /** Its fields and lists are replaced by those given. */
  async update(transaction: Queryable, id: string, fields: OrganizationFields, now: Date): Promise<void> {
    await transaction.query('UPDATE organizations SET name = ?, shared_tickets = ?, shared_comments = ?, updated_at = ? WHERE id = ?', [
      fields.name,
      fields.sharedTickets,
      fields.sharedComments,
      now,
      id,
    ]);
    await transaction.query('DELETE FROM organization_domains WHERE organization_id = ?', [id]);
    await transaction.query('DELETE FROM organization_members WHERE organization_id = ?', [id]);
    await this.replaceLists(transaction, Number(id), fields);
  }

  private async replaceLists(transaction: Queryable, id: number, fields: OrganizationFields): Promise<void> {
    if (fields.domains.length > 0) {
      await transaction.query('INSERT INTO organization_domains (domain, organization_id) VALUES ?', [fields.domains.map((d) => [d, id])]);
    }
    if (fields.members.length > 0) {
      await transaction.query('INSERT INTO organization_members (email, organization_id) VALUES ?', [fields.members.map((m) => [m, id])]);
    }
  }

  /** The domains and addresses among these that an organization other than `except` lists, locked until the transaction ends. */
  async taken(transaction: Queryable, fields: Pick<OrganizationFields, 'domains' | 'members'>, except?: string): Promise<TakenEntry[]> {
    const taken: TakenEntry[] = [];
    const look = async (field: TakenEntry['field'], table: string, column: string, values: string[]) => {
      if (values.length === 0) return;
      const rows = (await transaction.query(
        `SELECT ${column} AS value, organization_id FROM ${table} WHERE ${column} IN (?) AND organization_id <> ? ORDER BY ${column} FOR UPDATE`,
        [values, except ?? 0],
      )) as Array<{ value: string; organization_id: string | number }>;
      taken.push(...rows.map((row) => ({ field, value: row.value, organizationId: Number(row.organization_id) })));
    };
    await look('domains', 'organization_domains', 'domain', fields.domains);
    await look('members', 'organization_members', 'email', fields.members);
    return taken;
  }

  async page(page: KeysetPageRequest): Promise<OrganizationResponse[]> {
    const range = keysetSql(page);
    const rows = await this.database.rows<OrganizationRow>(`SELECT ${COLUMNS} FROM organizations WHERE TRUE${range.sql}`, range.params);
    return this.withLists(this.database, rows);
  }

  async findOne(id: string, manager: Queryable = this.database, lock = false): Promise<OrganizationResponse | undefined> {
    const rows = (await manager.query(`SELECT ${COLUMNS} FROM organizations WHERE id = ?${lock ? ' FOR UPDATE' : ''}`, [
      id,
    ])) as OrganizationRow[];
    return (await this.withLists(manager, rows))[0];
  }

  /** Whether it existed; its domains and members go with it (foreign keys). */
  async delete(id: string): Promise<boolean> {
    const { affectedRows } = await this.database.query<{ affectedRows: number }>('DELETE FROM organizations WHERE id = ?', [id]);
    return affectedRows > 0;
  }

  private async withLists(manager: Queryable, rows: OrganizationRow[]): Promise<OrganizationResponse[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    type Listed = Array<{ organization_id: string | number; value: string }>;
    const domains = (await manager.query(
      'SELECT organization_id, domain AS value FROM organization_domains WHERE organization_id IN (?) ORDER BY domain',
      [ids],
    )) as Listed;
    const members = (await manager.query(
      'SELECT organization_id, email AS value FROM organization_members WHERE organization_id IN (?) ORDER BY email',
      [ids],
    )) as Listed;
    const of = (list: Listed, id: string | number) =>
      list.filter((row) => String(row.organization_id) === String(id)).map((row) => row.value);
    return rows.map((row) => ({
      id: Number(row.id),
      name: row.name,
      domains: of(domains, row.id),
      members: of(members, row.id),
      sharedTickets: row.shared_tickets === 1,
      sharedComments: row.shared_comments === 1,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }));
  }
}
