import type { AfterQueryEvent, BeforeQueryEvent, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { EventSubscriber } from 'typeorm';
import { assertDeadlineNotPassed } from './request-deadline.js';

/** The mysql2 pool connection a TypeORM query runner holds (a protected field of TypeORM's runner). */
type RunnerWithConnection = QueryRunner & { databaseConnection?: { destroy?: () => void } };

/**
 * Two rules that make database timeouts safe rather than harmful:
 * - No statement, COMMIT included, goes out after the request's deadline: the client has had its 503, so
 *   the work must not land later (a retry would find it done twice). ROLLBACK always goes, so a connection
 *   never returns to the pool inside a transaction.
 * - A connection whose statement timed out is destroyed, not reused: mysql2 gives up waiting but leaves the
 *   statement in flight, so the next query on that connection would wait behind it for ever and a network
 *   partition would leak the whole pool. Destroying it removes it from the pool; the server rolls back.
 */
@EventSubscriber()
export class DatabaseTimeoutsSubscriber implements EntitySubscriberInterface {
  beforeQuery(event: BeforeQueryEvent): void {
    if (!/^\s*ROLLBACK\b/i.test(event.query)) assertDeadlineNotPassed();
  }

  afterQuery(event: AfterQueryEvent): void {
    if (event.error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') {
      (event.queryRunner as RunnerWithConnection).databaseConnection?.destroy?.();
    }
  }
}
