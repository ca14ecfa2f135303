import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import { springFieldError } from '../common/errors/spring-field-error.js';
import { ValidationFailedException } from '../common/errors/validation-failed.exception.js';
import { compilePattern, type DefinitionProblem, type FieldDefinition, readDefinition } from './field-definition.js';
import { FieldDefinitionsRepository, type StoredDefinition } from './field-definitions.repository.js';
import { FieldValuesRepository } from './field-values.repository.js';
import type { FieldDefinitionResponse } from './dto/field-definition.dto.js';
import type { ValueProblem } from './field-values.js';

/** How long a replica keeps the definitions it read: a change made on another replica is seen within this time. */
const DEFINITIONS_TTL_MS = 1000;

/** A 400 naming each member (`fields.<key>`, or a definition's member) and why, as every validation failure does. */
export function invalidFields(objectName: string, problems: ReadonlyArray<DefinitionProblem | ValueProblem>): ValidationFailedException {
  return new ValidationFailedException(
    objectName,
    problems.map((problem) =>
      springFieldError(objectName, problem.field, 'InvalidValue', 'java.lang.Object', [], problem.message, problem.rejected),
    ),
  );
}

export function definitionResponse({ id: _id, ...definition }: StoredDefinition): FieldDefinitionResponse {
  return definition;
}

/**
 * Custom field definitions (docs/api.md#custom-fields) and the rules of changing them: a change never rewrites stored
 * values, so narrowing options, bounds or a pattern is refused while tickets hold values outside it, and deleting a
 * field records in each ticket's history the value that goes with it.
 */
@Injectable()
export class FieldsService {
  private cached?: { at: number; definitions: Promise<StoredDefinition[]> };

  constructor(
    private readonly database: Database,
    private readonly definitionsRepository: FieldDefinitionsRepository,
    private readonly values: FieldValuesRepository,
  ) {}

  /** Every definition, read again once it is a second old (and at once after a change made here). */
  definitions(): Promise<StoredDefinition[]> {
    if (!this.cached || Date.now() - this.cached.at > DEFINITIONS_TTL_MS) {
      const definitions = this.definitionsRepository.all();
      this.cached = { at: Date.now(), definitions };
      // A failed read is not kept: the next caller reads again.
      definitions.catch(() => (this.cached = undefined));
    }
    return this.cached.definitions;
  }

  /**
   * The definitions as a write of values sees them in its transaction, under a shared lock that a change or delete of
   * one (which locks its row exclusively) waits for, and that waits for them.
   */
  definitionsForWrite(transaction: Queryable): Promise<StoredDefinition[]> {
    return this.definitionsRepository.all(transaction, true);
  }

  /** The definitions as `manager` reads them (an export's snapshot reads them with its tickets). */
  definitionsIn(manager: Queryable): Promise<StoredDefinition[]> {
    return this.definitionsRepository.all(manager);
  }

  async get(key: string): Promise<StoredDefinition> {
    const definition = (await this.definitionsRepository.all()).find((candidate) => candidate.key === key);
    if (!definition) throw new NotFoundException(`No custom field has the key ${key}`);
    return definition;
  }

  async create(body: unknown): Promise<StoredDefinition> {
    const { definition, problems } = readDefinition(body);
    if (!definition) throw invalidFields('fieldDefinitionRequest', problems);
    const now = new Date();
    const id = await this.definitionsRepository.insert(definition, now);
    if (id === undefined) throw new ConflictException(`A custom field with the key ${definition.key} exists already`);
    this.cached = undefined;
    return { ...definition, id, createdAt: now, updatedAt: now };
  }

  async change(key: string, body: unknown): Promise<StoredDefinition> {
    const changed = await this.database.transaction(async (transaction) => {
      const existing = await this.definitionsRepository.lock(transaction, key);
      if (!existing) throw new NotFoundException(`No custom field has the key ${key}`);
      const { definition, problems } = readDefinition(body, existing);
      if (!definition) throw invalidFields('fieldDefinitionRequest', problems);
      const refused = await this.valuesOutside(transaction, existing, definition);
      if (refused > 0) {
        throw new ConflictException(
          `${refused} ticket(s) hold values of ${key} outside the new definition; change or remove those values first`,
        );
      }
      const now = new Date();
      await this.definitionsRepository.update(transaction, existing.id, definition, now);
      return { ...definition, id: existing.id, createdAt: existing.createdAt, updatedAt: now };
    });
    this.cached = undefined;
    return changed;
  }

  async remove(key: string, actor: string | null): Promise<void> {
    await this.database.transaction(async (transaction) => {
      const existing = await this.definitionsRepository.lock(transaction, key);
      if (!existing) throw new NotFoundException(`No custom field has the key ${key}`);
      await this.values.recordRemoval(transaction, existing, actor, new Date());
      await this.definitionsRepository.delete(transaction, existing.id);
    });
    this.cached = undefined;
  }

  /** How many tickets hold a value that `next` would refuse and `existing` allows (narrowed options, bounds or pattern). */
  private async valuesOutside(
    transaction: Parameters<FieldValuesRepository['texts']>[0],
    existing: StoredDefinition,
    next: FieldDefinition,
  ): Promise<number> {
    const conditions: Array<{ sql: string; params: unknown[] }> = [];
    if (next.options && existing.options?.some((option) => !next.options!.includes(option))) {
      conditions.push({ sql: 'text_value NOT IN (?)', params: [next.options] });
    }
    if (next.min !== null && (existing.min === null || next.min > existing.min))
      conditions.push({ sql: 'number_value < ?', params: [next.min] });
    if (next.max !== null && (existing.max === null || next.max < existing.max))
      conditions.push({ sql: 'number_value > ?', params: [next.max] });
    let refused = 0;
    if (conditions.length > 0) {
      refused += await this.values.countOutside(transaction, existing.id, {
        sql: conditions.map((condition) => condition.sql).join(' OR '),
        params: conditions.flatMap((condition) => condition.params),
      });
    }
    if (next.pattern !== null && next.pattern !== existing.pattern) {
      // JavaScript's regular expressions are not the database's: each value is checked here, a page at a time.
      const matcher = compilePattern(next.pattern)!;
      for (let after = 0; ;) {
        const page = await this.values.texts(transaction, existing.id, after, 5000);
        refused += page.filter((value) => !matcher.test(value.text)).length;
        if (page.length < 5000) break;
        after = page.at(-1)!.ticketId;
      }
    }
    return refused;
  }
}
