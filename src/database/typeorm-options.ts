import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { CreateTickets1763900000000 } from './migrations/1763900000000-CreateTickets.js';
import { CreateOutbox1763900000001 } from './migrations/1763900000001-CreateOutbox.js';
import { PartitionOutbox1763900000002 } from './migrations/1763900000002-PartitionOutbox.js';
import { OutboxTraceContext1763900000003 } from './migrations/1763900000003-OutboxTraceContext.js';
import { AddTicketQueryIndexes1763900013000 } from './migrations/1763900013000-AddTicketQueryIndexes.js';
import { AddOutboxRoutingKey1763900014000 } from './migrations/1763900014000-AddOutboxRoutingKey.js';
import { CreateTicketHistory1763900014001 } from './migrations/1763900014001-CreateTicketHistory.js';
import { CreateTicketComments1763900014002 } from './migrations/1763900014002-CreateTicketComments.js';
import { CreateIdempotencyKeys1763900014003 } from './migrations/1763900014003-CreateIdempotencyKeys.js';
import { CreateTicketWords1763900015000 } from './migrations/1763900015000-CreateTicketWords.js';
import { ExactIdempotencyScopes1763900016300 } from './migrations/1763900016300-ExactIdempotencyScopes.js';
import { CreateSlaClocks1763900017000 } from './migrations/1763900017000-CreateSlaClocks.js';
import { CreateChangeFeed1763900018000 } from './migrations/1763900018000-CreateChangeFeed.js';
import { CreateWebhooks1763900019000 } from './migrations/1763900019000-CreateWebhooks.js';
import { CreateTicketAttachments1763900020000 } from './migrations/1763900020000-CreateTicketAttachments.js';
import { WebhookDeliveriesWithoutForeignKey1763900021000 } from './migrations/1763900021000-WebhookDeliveriesWithoutForeignKey.js';
import { WebhookDeliveriesDueByEndpoint1763900021001 } from './migrations/1763900021001-WebhookDeliveriesDueByEndpoint.js';
import { SlaReconciliation1763900022000 } from './migrations/1763900022000-SlaReconciliation.js';
import { OneChangeLog1763900023000 } from './migrations/1763900023000-OneChangeLog.js';
import { RequestersAndOrganizations1763900024000 } from './migrations/1763900024000-RequestersAndOrganizations.js';
import { EmailChannel1763900025000 } from './migrations/1763900025000-EmailChannel.js';
import { TicketTags1763900026000 } from './migrations/1763900026000-TicketTags.js';
import { CustomFields1763900027000 } from './migrations/1763900027000-CustomFields.js';
import { SortByFieldsAndRecency1763900028000 } from './migrations/1763900028000-SortByFieldsAndRecency.js';
import { TicketLinks1763900029000 } from './migrations/1763900029000-TicketLinks.js';
import { TicketMerges1763900030000 } from './migrations/1763900030000-TicketMerges.js';
import { Jobs1763900031000 } from './migrations/1763900031000-Jobs.js';
import { TicketImports1763900032000 } from './migrations/1763900032000-TicketImports.js';
import { ImportLineSizes1763900033000 } from './migrations/1763900033000-ImportLineSizes.js';
import { databaseTimeoutsSubscriber } from './database-timeouts.subscriber.js';
import { NestTypeOrmLogger } from './typeorm-logger.js';

/**
 * The application's TypeORM options. DatabaseModule adds the service's own pool as `driver`, so TypeORM makes no pool
 * of its own. The entities belong to their features: the application loads those the feature modules register
 * (`TypeOrmModule.forFeature`). The migrations are written by hand and listed here (docs/architecture.md).
 */
export function typeOrmOptions(db: AppConfig['db']): DataSourceOptions {
  return {
    type: 'mysql',
    host: db.host,
    port: db.port,
    username: db.username,
    password: db.password,
    database: db.database,
    charset: 'utf8mb4_unicode_ci',
    // Timestamps are written and read as UTC so the API can serve them with a "Z".
    timezone: 'Z',
    migrations: [
      CreateTickets1763900000000,
      CreateOutbox1763900000001,
      PartitionOutbox1763900000002,
      OutboxTraceContext1763900000003,
      AddTicketQueryIndexes1763900013000,
      AddOutboxRoutingKey1763900014000,
      CreateTicketHistory1763900014001,
      CreateTicketComments1763900014002,
      CreateIdempotencyKeys1763900014003,
      CreateTicketWords1763900015000,
      ExactIdempotencyScopes1763900016300,
      CreateSlaClocks1763900017000,
      CreateChangeFeed1763900018000,
      CreateWebhooks1763900019000,
      CreateTicketAttachments1763900020000,
      WebhookDeliveriesWithoutForeignKey1763900021000,
      WebhookDeliveriesDueByEndpoint1763900021001,
      SlaReconciliation1763900022000,
      OneChangeLog1763900023000,
      RequestersAndOrganizations1763900024000,
      EmailChannel1763900025000,
      TicketTags1763900026000,
      CustomFields1763900027000,
      SortByFieldsAndRecency1763900028000,
      TicketLinks1763900029000,
      TicketMerges1763900030000,
      Jobs1763900031000,
      TicketImports1763900032000,
      ImportLineSizes1763900033000,
    ],
    // The application runs them itself right after connecting (DatabaseModule, runMigrations), so that it can say
    // which ran; there is no other way they run.
    migrationsRun: false,
    synchronize: false,
    subscribers: [databaseTimeoutsSubscriber()],
    logger: new NestTypeOrmLogger(),
    // A database that is down, slow or silently gone must cost a request at most DB_QUERY_TIMEOUT_MS, not
    // hang it: connecting and each statement are bounded by it (a connection whose statement timed out is
    // destroyed, see DatabaseTimeoutsSubscriber); 0 turns these bounds off. The migrations' statements are not
    // bounded (runMigrations).
    connectTimeout: db.queryTimeoutMs || undefined,
    enableQueryTimeout: db.queryTimeoutMs > 0,
    maxQueryExecutionTime: db.queryTimeoutMs || undefined,
  };
}
