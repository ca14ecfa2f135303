import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { Queryable } from '../database/statement-batch.js';
import type { RowsRead } from '../database/rows-read.js';
import type { FieldDefinition, FieldType } from './field-definition.js';

/** A definition as stored, with its id (what values refer to) and times. */
export interface StoredDefinition extends FieldDefinition {
  id: number;
  createdAt: Date;
  updatedAt: Date;
}

interface DefinitionRow {
  id: number;
  field_key: string;
  label: string;
  type: FieldType;
  required: number;
  options: string | null;
  min_value: number | null;
  max_value: number | null;
  pattern: string | null;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

const columns = (definition: FieldDefinition) => [
  definition.label,
  definition.required ? 1 : 0,
  definition.options && JSON.stringify(definition.options),
  definition.min,
  definition.max,
  definition.pattern,
  definition.description,
];

/** `field_definitions`: the custom fields a desk has defined. */
@Injectable()
export class FieldDefinitionsRepository {
  constructor(private readonly database: Database) {}

  /** Every definition; `shared`: under a shared lock of the caller's transaction. */
  async all(manager: Queryable = this.database, shared = false): Promise<StoredDefinition[]> {
    const rows = (await manager.query(shared ? SHARED_DEFINITIONS_SQL : 'SELECT * FROM field_definitions ORDER BY id')) as DefinitionRow[];
    return definitionsFromRows(rows);
  }

  /** The definition of `key`, locked for the caller's transaction (a change waits for writes of its values). */
  async lock(transaction: Queryable, key: string): Promise<StoredDefinition | undefined> {
    const rows = (await transaction.query('SELECT * FROM field_definitions WHERE field_key = ? FOR UPDATE', [key])) as DefinitionRow[];
    return rows.map(fromRow)[0];
  }

  /** Adds the definition; undefined when its key is taken. */
  async insert(definition: FieldDefinition, now: Date): Promise<number | undefined> {
    try {
      const result = (await this.database.query(
        `INSERT INTO field_definitions (field_key, type, label, required, options, min_value, max_value, pattern, description, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [definition.key, definition.type, ...columns(definition), now, now],
      )) as { insertId: number };
      return Number(result.insertId);
    } catch (error) {
      if ((error as { errno?: number }).errno === 1062) return undefined;
      throw error;
    }
  }

  async update(transaction: Queryable, id: number, definition: FieldDefinition, now: Date): Promise<void> {
    await transaction.query(
      `UPDATE field_definitions SET label = ?, required = ?, options = ?, min_value = ?, max_value = ?, pattern = ?, description = ?,
       updated_at = ? WHERE id = ?`,
      [...columns(definition), now, id],
    );
  }

  async delete(transaction: Queryable, id: number): Promise<void> {
    await transaction.query('DELETE FROM field_definitions WHERE id = ?', [id]);
  }
}

const SHARED_DEFINITIONS_SQL = 'SELECT * FROM field_definitions ORDER BY id LOCK IN SHARE MODE';

function definitionsFromRows(rows: readonly unknown[]): StoredDefinition[] {
  return (rows as DefinitionRow[]).map(fromRow);
}

/**
 * Every definition under a shared lock, which a change or delete of one (locking its row exclusively) waits for, as a
 * read that can share a round trip with others (readTogether).
 */
export const sharedDefinitionsRead: RowsRead<StoredDefinition[]> = { sql: SHARED_DEFINITIONS_SQL, params: [], from: definitionsFromRows };

function fromRow(row: DefinitionRow): StoredDefinition {
  return {
    id: Number(row.id),
    key: row.field_key,
    label: row.label,
    type: row.type,
    required: Boolean(row.required),
    options: row.options === null ? null : (JSON.parse(row.options) as string[]),
    min: row.min_value === null ? null : Number(row.min_value),
    max: row.max_value === null ? null : Number(row.max_value),
    pattern: row.pattern,
    description: row.description,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
