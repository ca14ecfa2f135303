import { Module } from '@nestjs/common';
import { OutboxLeasesRepository } from './outbox-leases.repository.js';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboxEvent } from './outbox-event.entity.js';
import { OutboxMetrics } from './outbox.metrics.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxRepository } from './outbox.repository.js';
import { OutboxWriter } from './outbox.writer.js';
import { ChangeFeedRepository } from '../changes/change-feed.repository.js';

/** The outbox: the writer (an event into a write's transaction), the relay that publishes it, and its metrics. */
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEvent])],
  providers: [OutboxWriter, OutboxRelay, OutboxRepository, OutboxLeasesRepository, OutboxMetrics, ChangeFeedRepository],
  exports: [OutboxWriter, OutboxRelay],
})
export class OutboxModule {}
