import { randomUUID } from 'node:crypto';
import {
  ConflictException,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  UnprocessableEntityException,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Queryable } from '../database/statement-batch.js';
import type { AppConfig } from '../config/app-config.js';
import type { IdempotencyClaim } from '../common/context/write-context.js';
import { PeriodicWorker } from '../database/periodic-worker.js';
import { freeOfRequestDeadline } from '../database/request-deadline.js';
import { IdempotencyRepository, type KeyRecord, type StartedKey, type StoredResponse } from './idempotency.repository.js';

export type { StoredResponse };

/** 422: the key was used with another request, in method, path or body. */
export function differentRequest(key: string): UnprocessableEntityException {
  return new UnprocessableEntityException(`Idempotency-Key "${key}" was used with a different request (method, path or body)`);
}

/**
 * A started key whose request has not finished after this long is taken to be a crashed one, and the next
 * request with the key runs. Far beyond any request's life (requests are bounded by the database deadline and
 * the server's request timeout), so a slow request is never run twice.
 */
export const STARTED_TIMEOUT_MS = 60_000;
const PURGE_INTERVAL_MS = 5 * 60_000;
export const PURGE_BATCH_SIZE = 1_000;

/** A claim to run the request, or the key's finished response and the request hash it was stored with. */
export type IdempotencyStart = { claim: IdempotencyClaim } | { replay: StoredResponse; requestHash: string };

/**
 * Idempotency keys as a state machine in the database (Stripe's design): started → finished → expired (purged).
 * Nothing is held in process memory, so every replica sees the same keys (decision 30).
 */
@Injectable()
export class IdempotencyService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly ttlMs: number;
  private readonly purge = new PeriodicWorker({
    name: IdempotencyService.name,
    intervalMs: PURGE_INTERVAL_MS,
    pass: () => this.purgeExpired().then(() => false),
  });

  constructor(
    private readonly keys: IdempotencyRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    this.ttlMs = config.get('idempotency.ttlHours', { infer: true }) * 3_600_000;
  }

  onApplicationBootstrap(): void {
    this.purge.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.purge.stop();
  }

  /**
   * Claims the key for this request (a `started` row committed at once, outside the write's transaction, so a
   * concurrent request sees it), or answers what the key already holds: the stored response of the same request
   * (replay), 409 while it is still running, 422 for a different request. An expired key, or one started by a
   * request that crashed, is claimed anew. With `contentLater` (a body that is read only as the write runs, whose
   * finish records the hash with its content), a finished key is answered whatever its hash: the caller compares it
   * once it has read the content.
   */
  async start(
    scope: string,
    key: string,
    hash: string,
    request: Pick<IdempotencyClaim, 'locationOf' | 'requestHashOf'>,
    contentLater = false,
  ): Promise<IdempotencyStart> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = new Date();
      const token = randomUUID();
      const claim = { scope, key, token, ...request };
      if (await this.keys.insertStarted(this.started(claim, hash, now))) return { claim };
      const row = await this.keys.find(scope, key);
      if (!row) continue; // dropped meanwhile (its request failed): try to claim it again
      const expired = row.expiresAt.getTime() <= now.getTime();
      const abandoned = row.state === 'started' && now.getTime() - row.startedAt.getTime() >= STARTED_TIMEOUT_MS;
      if (expired || abandoned) {
        if (await this.takeOver(row, claim, hash, now)) return { claim };
        continue;
      }
      if (row.requestHash !== hash && (row.state === 'started' || !contentLater)) throw differentRequest(key);
      if (row.state === 'started') {
        throw new ConflictException(`A request with Idempotency-Key "${key}" is still being processed; retry later`);
      }
      return { replay: { status: row.status!, body: row.body!, location: row.location, etag: row.etag }, requestHash: row.requestHash };
    }
    throw new ConflictException(`A request with Idempotency-Key "${key}" is still being processed; retry later`);
  }

  /**
   * In the write's transaction: the response becomes the key's, and commits with the write or not at all. A claim
   * that was taken over meanwhile (its request ran past STARTED_TIMEOUT_MS) fails the write with a 409.
   */
  async finish(manager: Queryable, claim: IdempotencyClaim, response: StoredResponse, requestHash?: string): Promise<void> {
    if (!(await this.keys.finish(manager, claim, response, requestHash)))
      throw new ConflictException(`Idempotency-Key "${claim.key}" was taken over by another request`);
  }

  /**
   * A create's 201 (its body, Location and ETag) as the key's response, when the request holds a key; `content`: what
   * identifies a body read only as the write ran (see start's `contentLater`), recorded in the key's request hash.
   */
  async finishCreated(
    manager: Queryable,
    claim: IdempotencyClaim | undefined,
    created: { id: number },
    etag: string | null,
    content?: unknown,
  ): Promise<void> {
    if (!claim) return;
    const response = { status: 201, body: JSON.stringify(created), location: claim.locationOf(created.id), etag };
    await this.finish(manager, claim, response, content === undefined ? undefined : claim.requestHashOf(content));
  }

  /** An update's 200 (its body and ETag) as the key's response, when the request holds a key. */
  async finishUpdated(manager: Queryable, claim: IdempotencyClaim | undefined, updated: object, etag: string): Promise<void> {
    if (!claim) return;
    await this.finish(manager, claim, { status: 200, body: JSON.stringify(updated), location: null, etag });
  }

  /** The request failed (a 4xx or a rolled-back write): nothing is stored, so a corrected retry with the key runs. */
  async abandon(claim: IdempotencyClaim): Promise<void> {
    // Also, and above all, for a request that ran past its database deadline: the write rolls back at its next
    // statement, and a key left started would answer the client's retries with 409 until it expires.
    await freeOfRequestDeadline(() => this.keys.deleteStarted(claim));
  }

  /**
   * Deletes expired keys in batches of PURGE_BATCH_SIZE, each its own short statement on the expiry index, so a
   * large backlog never holds many locks at once. Several replicas may purge at the same time: each deletes what
   * is still there. Returns how many rows went.
   */
  async purgeExpired(now = new Date()): Promise<number> {
    let purged = 0;
    for (;;) {
      const affectedRows = await this.keys.deleteExpired(now, PURGE_BATCH_SIZE);
      purged += affectedRows;
      if (affectedRows < PURGE_BATCH_SIZE) return purged;
    }
  }

  /** Claims an expired or abandoned key by a conditional update on the token and state seen, so only one request wins it. */
  private takeOver(row: KeyRecord, claim: IdempotencyClaim, hash: string, now: Date): Promise<boolean> {
    // The state seen too: a request that finished after the read keeps its key (its write stands).
    return this.keys.takeOver(row, this.started(claim, hash, now));
  }

  /** A claim's started row: it expires IDEMPOTENCY_TTL_HOURS after it started. */
  private started(claim: IdempotencyClaim, hash: string, now: Date): StartedKey {
    return { claim, hash, startedAt: now, expiresAt: new Date(now.getTime() + this.ttlMs) };
  }
}
