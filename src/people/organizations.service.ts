import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { springFieldError } from '../common/errors/spring-field-error.js';
import type { SpringFieldError } from '../common/errors/spring-field-error.js';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { type KeysetPage, type KeysetPageRequest, keysetPage } from '../common/paging/keyset-page.js';
import { Database } from '../database/database.js';
import { serverErrno } from '../database/connection-errors.js';
import type { Queryable } from '../database/statement-batch.js';
import type { OrganizationPatch } from './dto/organization-patch.dto.js';
import type { OrganizationRequest } from './dto/organization-request.dto.js';
import type { OrganizationResponse } from './dto/organization-response.dto.js';
import { canonicalDomain, canonicalEmail } from '../common/validation/email-address.js';
import { type OrganizationFields, OrganizationsRepository } from './organizations.repository.js';

const ER_DUP_ENTRY = 1062;

/** Organizations: their lists in canonical form, each domain and address in one organization at most; SQL in the repository. */
@Injectable()
export class OrganizationsService {
  constructor(
    private readonly database: Database,
    private readonly organizations: OrganizationsRepository,
  ) {}

  async create(request: OrganizationRequest): Promise<OrganizationResponse> {
    const fields: OrganizationFields = {
      name: request.name,
      ...canonicalLists('organizationRequest', request),
      sharedTickets: request.sharedTickets ?? false,
      sharedComments: request.sharedComments ?? false,
    };
    return this.write(async (transaction) => {
      await this.assertFree(transaction, fields);
      return String(await this.organizations.insert(transaction, fields, new Date()));
    });
  }

  async list(page: KeysetPageRequest): Promise<KeysetPage<OrganizationResponse>> {
    return keysetPage(await this.organizations.page(page), page);
  }

  async findOne(id: string): Promise<OrganizationResponse> {
    return (await this.organizations.findOne(id)) ?? notFound(id);
  }

  async update(id: string, patch: OrganizationPatch): Promise<OrganizationResponse> {
    const lists = canonicalLists('organizationPatch', patch);
    return this.write(async (transaction) => {
      const current = (await this.organizations.findOne(id, transaction, true)) ?? notFound(id);
      const fields: OrganizationFields = {
        name: patch.name ?? current.name,
        domains: patch.domains === undefined ? current.domains : lists.domains,
        members: patch.members === undefined ? current.members : lists.members,
        sharedTickets: patch.sharedTickets ?? current.sharedTickets,
        sharedComments: patch.sharedComments ?? current.sharedComments,
      };
      await this.assertFree(transaction, fields, id);
      await this.organizations.update(transaction, id, fields, new Date());
      return id;
    });
  }

  async remove(id: string): Promise<void> {
    if (!(await this.organizations.delete(id))) notFound(id);
  }

  /** 409 naming the domains and addresses among these that another organization lists (their rows stay locked). */
  private async assertFree(transaction: Queryable, fields: OrganizationFields, id?: string): Promise<void> {
    const taken = await this.organizations.taken(transaction, fields, id);
    if (taken.length === 0) return;
    const named = taken.map((entry) => `${entry.value} (organization ${entry.organizationId})`).join(', ');
    throw new ConflictException(`Another organization already lists ${named}; a domain or an address belongs to one organization`);
  }

  /** `work` (which answers the organization's id) in a transaction, then the organization; a race past assertFree ends on the primary keys, also as 409. */
  private async write(work: (transaction: Queryable) => Promise<string>): Promise<OrganizationResponse> {
    try {
      return await this.database.transaction(
        async (transaction) => (await this.organizations.findOne(await work(transaction), transaction))!,
      );
    } catch (error) {
      if (serverErrno(error) !== ER_DUP_ENTRY) throw error;
      throw new ConflictException(
        'Another organization already lists one of these domains or addresses; a domain or an address belongs to one organization',
      );
    }
  }
}

function notFound(id: string): never {
  throw new NotFoundException(`Organization not found with id: ${id}`);
}

/** The lists in canonical form, without repeats; one 400 names every entry that is no domain or no address. */
function canonicalLists(
  objectName: string,
  body: Pick<OrganizationRequest, 'domains' | 'members'>,
): Pick<OrganizationFields, 'domains' | 'members'> {
  const errors: SpringFieldError[] = [];
  const read = (field: 'domains' | 'members', canonical: (value: unknown) => string | undefined, what: string) =>
    [
      ...new Set(
        (body[field] ?? []).flatMap((value, i) => {
          const form = canonical(value);
          if (form === undefined)
            errors.push(springFieldError(objectName, `${field}[${i}]`, 'Invalid', 'java.lang.String', [], `not ${what}`, value));
          return form === undefined ? [] : [form];
        }),
      ),
    ].sort();
  const lists = {
    domains: read('domains', canonicalDomain, 'a domain name'),
    members: read('members', canonicalEmail, 'an email address'),
  };
  if (errors.length > 0) throw new ValidationFailedException(objectName, errors);
  return lists;
}
