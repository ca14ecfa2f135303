import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type Observable, throwError, timeout } from 'rxjs';
import type { AppConfig } from '../config/app-config.js';
import { databaseTimeout, runWithDeadline } from './request-deadline.js';

/**
 * Bounds a request that works on the database by DB_QUERY_TIMEOUT_MS: when the database is slow or
 * unreachable in a way no driver timeout notices (a connection that waits in the pool queue, several
 * statements that are each just under the per-query timeout), the client gets a 503 at the deadline
 * instead of a hanging request. DatabaseTimeoutsSubscriber stops the abandoned work at its next statement.
 */
@Injectable()
export class DatabaseDeadlineInterceptor implements NestInterceptor {
  private readonly budgetMs: number;

  constructor(config: ConfigService<AppConfig, true>) {
    this.budgetMs = config.get('db.queryTimeoutMs', { infer: true });
  }

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.budgetMs <= 0) return next.handle();
    // handle() binds the handler to the async context it is called in, so the deadline reaches every query.
    return runWithDeadline(this.budgetMs, () => next.handle()).pipe(
      timeout({ first: this.budgetMs, with: () => throwError(() => databaseTimeout(this.budgetMs)) }),
    );
  }
}
