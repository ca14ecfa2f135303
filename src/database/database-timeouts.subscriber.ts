import type { PoolConnection } from 'mysql2';
import type { AfterQueryEvent, BeforeQueryEvent, EntitySubscriberInterface } from 'typeorm';
import { EventSubscriber } from 'typeorm';
import { assertDeadlineNotPassed } from './request-deadline.js';

/**
 * Two rules that make database timeouts safe rather than harmful:
 * - No statement, COMMIT included, goes out after the request's deadline: the client has had its 503, so
 *   the work must not land later (a retry would find it done twice). ROLLBACK always goes, so a connection
 *   never returns to the pool inside a transaction.
 * - A connection whose statement timed out is destroyed, not reused: mysql2 gives up waiting but leaves the
 *   statement in flight, so the next query on that connection would wait behind it for ever and a network
 *   partition would leak the whole pool. Destroying it removes it from the pool; the server rolls back.
 * `destroy` is the pool's own (DatabasePool.destroy), so that its counts forget the connection at once; TypeORM
 * makes its subscribers itself, hence a class made for the pool rather than one injected with it.
 */
export function databaseTimeoutsSubscriber(destroy: (connection: PoolConnection) => void = (connection) => connection.destroy()) {
  @EventSubscriber()
  class DatabaseTimeoutsSubscriber implements EntitySubscriberInterface {
    beforeQuery(event: BeforeQueryEvent): void {
      if (!/^\s*ROLLBACK\b/i.test(event.query)) assertDeadlineNotPassed();
    }

    async afterQuery(event: AfterQueryEvent): Promise<void> {
      if (event.error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') {
        // The runner's connection, as QueryRunner.connect() answers it once connected. The runner waits for this
        // before its statement fails, so the connection is gone before anything could release it to the pool.
        destroy((await event.queryRunner.connect()) as PoolConnection);
      }
    }
  }
  return DatabaseTimeoutsSubscriber;
}
