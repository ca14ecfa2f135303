import { Module } from '@nestjs/common';
import { OutboxLeasesRepository } from './outbox-leases.repository.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxRepository } from './outbox.repository.js';
import { OutboxWriter } from './outbox.writer.js';

@Module({
  providers: [OutboxWriter, OutboxRelay, OutboxRepository, OutboxLeasesRepository],
  exports: [OutboxWriter, OutboxRelay],
})
export class OutboxModule {}
