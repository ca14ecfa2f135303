/** What writes statements: a transaction's EntityManager, or a StatementBatch. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/**
 * Statements of a transaction whose results nobody reads, sent to the database together: one round trip (mysql2's
 * `multipleStatements`) instead of one each. Each round trip costs a write to the database's socket, the most
 * costly single thing a statement does here. MariaDB runs them in order and stops at the first that fails; its
 * error fails `run`, and the transaction rolls back. Every value is a bound parameter, as in every statement.
 */
export class StatementBatch implements Queryable {
  private readonly statements: string[] = [];
  private readonly params: unknown[] = [];

  /** Adds a statement; its result is not read (resolves at once, to nothing). */
  query = async (sql: string, params: unknown[] = []): Promise<undefined> => {
    this.statements.push(sql);
    this.params.push(...params);
    return undefined;
  };

  get size(): number {
    return this.statements.length;
  }

  /** Sends the statements added so far, and `last` after them when given, in one round trip. */
  async run(manager: Queryable, last?: string): Promise<void> {
    const statements = last === undefined ? this.statements : [...this.statements, last];
    if (statements.length > 0) await manager.query(statements.join(';\n'), this.params);
  }
}
