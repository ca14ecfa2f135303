import { Database } from '../database/database.js';
import { Injectable } from '@nestjs/common';
import { serverErrno } from '../database/connection-errors.js';
import type { Queryable } from '../database/statement-batch.js';
import type { IdempotencyClaim } from '../common/context/write-context.js';

/** The response a finished key replays. */
export interface StoredResponse {
  status: number;
  body: string;
  location: string | null;
  etag: string | null;
}

/** A key's row as the database holds it. */
export interface KeyRecord {
  requestHash: string;
  state: 'started' | 'finished';
  token: string;
  startedAt: Date;
  expiresAt: Date;
  status: number | null;
  location: string | null;
  etag: string | null;
  body: string | null;
}

interface KeyRow {
  request_hash: string;
  state: 'started' | 'finished';
  token: string;
  started_at: Date;
  expires_at: Date;
  status: number | null;
  location: string | null;
  etag: string | null;
  body: string | null;
}

/** A claim with what its started row records. */
export interface StartedKey {
  claim: IdempotencyClaim;
  hash: string;
  startedAt: Date;
  expiresAt: Date;
}

/** `idempotency_keys`: every write of a key names it by its primary key (scope, key) and, once claimed, its token. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly database: Database) {}

  /** Inserts the key's `started` row, committed at once; false when the key has a row already. */
  async insertStarted({ claim, hash, startedAt, expiresAt }: StartedKey): Promise<boolean> {
    try {
      await this.database.query(
        `INSERT INTO idempotency_keys (scope, idem_key, request_hash, state, token, started_at, expires_at) VALUES (?, ?, ?, 'started', ?, ?, ?)`,
        [claim.scope, claim.key, hash, claim.token, startedAt, expiresAt],
      );
      return true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      return false;
    }
  }

  async find(scope: string, key: string): Promise<KeyRecord | undefined> {
    const [row]: KeyRow[] = await this.database.query(
      'SELECT request_hash, state, token, started_at, expires_at, status, location, etag, body FROM idempotency_keys WHERE scope = ? AND idem_key = ?',
      [scope, key],
    );
    return row && keyFromRow(row);
  }

  /**
   * Claims an expired or abandoned key by a conditional update on the token and state seen (`seen`); true when
   * this request won it.
   */
  async takeOver(seen: Pick<KeyRecord, 'token' | 'state'>, { claim, hash, startedAt, expiresAt }: StartedKey): Promise<boolean> {
    const { affectedRows }: { affectedRows: number } = await this.database.query(
      `UPDATE idempotency_keys SET request_hash = ?, state = 'started', token = ?, started_at = ?, expires_at = ?,
         status = NULL, body = NULL, location = NULL, etag = NULL
       WHERE scope = ? AND idem_key = ? AND token = ? AND state = ?`,
      [hash, claim.token, startedAt, expiresAt, claim.scope, claim.key, seen.token, seen.state],
    );
    return affectedRows === 1;
  }

  /**
   * In the write's transaction (`manager`): the claim's started row becomes finished with `response`, and with
   * `requestHash` when given; false when it is no longer the claim's.
   */
  async finish(manager: Queryable, claim: IdempotencyClaim, response: StoredResponse, requestHash?: string): Promise<boolean> {
    const { affectedRows } = (await manager.query(
      `UPDATE idempotency_keys SET state = 'finished', request_hash = COALESCE(?, request_hash), status = ?, body = ?, location = ?, etag = ?
       WHERE scope = ? AND idem_key = ? AND token = ? AND state = 'started'`,
      [requestHash ?? null, response.status, response.body, response.location, response.etag, claim.scope, claim.key, claim.token],
    )) as { affectedRows: number };
    return affectedRows === 1;
  }

  /** Deletes the claim's row while it is still started. */
  async deleteStarted(claim: IdempotencyClaim): Promise<void> {
    await this.database.query(`DELETE FROM idempotency_keys WHERE scope = ? AND idem_key = ? AND token = ? AND state = 'started'`, [
      claim.scope,
      claim.key,
      claim.token,
    ]);
  }

  /** Deletes up to `limit` keys expired at `now`, one short statement on the expiry index; answers how many went. */
  async deleteExpired(now: Date, limit: number): Promise<number> {
    const { affectedRows }: { affectedRows: number } = await this.database.query(
      `DELETE FROM idempotency_keys WHERE expires_at <= ? LIMIT ${limit}`,
      [now],
    );
    return affectedRows;
  }
}

function keyFromRow(row: KeyRow): KeyRecord {
  return {
    requestHash: row.request_hash,
    state: row.state,
    token: row.token,
    startedAt: row.started_at,
    expiresAt: row.expires_at,
    status: row.status,
    location: row.location,
    etag: row.etag,
    body: row.body,
  };
}

function isDuplicateKey(error: unknown): boolean {
  return serverErrno(error) === 1062; // ER_DUP_ENTRY
}
