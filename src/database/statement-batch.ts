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

  /** Sends the statements added so far, in one round trip. */
  async run(manager: Queryable): Promise<void> {
    if (this.statements.length > 0) await manager.query(this.statements.join(';\n'), this.params);
  }
}
