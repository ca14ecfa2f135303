import { Module } from '@nestjs/common';
import { ChangesModule } from '../changes/changes.module.js';
import { OutboxLeasesRepository } from './outbox-leases.repository.js';
import { OutboxMetrics } from './outbox.metrics.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxRepository } from './outbox.repository.js';
import { OutboxWriter } from './outbox.writer.js';

/**
 * The change log's writer (a change into a write's transaction) and its RabbitMQ reader: the relay that publishes
 * each change, and its metrics. The change feed and webhooks read the same rows (src/changes/, src/webhooks/).
 */
@Module({
  imports: [ChangesModule],
  providers: [OutboxWriter, OutboxRelay, OutboxRepository, OutboxLeasesRepository, OutboxMetrics],
  exports: [OutboxWriter, OutboxRelay],
})
export class OutboxModule {}
