import { Module } from '@nestjs/common';
import { ChangeFeedRepository } from './change-feed.repository.js';
import { ChangeNotifier } from './change-notifier.js';
import { ChangeSequencer } from './change-sequencer.js';
import { ChangeSequencerRepository } from './change-sequencer.repository.js';
import { ChangesController } from './changes.controller.js';
import { ChangesService } from './changes.service.js';
import { StreamSlots } from './stream-slots.js';

/**
 * The change feed: changes recorded by the outbox writer in each write's transaction, numbered after commit by the
 * one sequencer, read by cursor as JSON (long-poll) or Server-Sent Events.
 */
@Module({
  controllers: [ChangesController],
  providers: [ChangeFeedRepository, ChangeSequencerRepository, ChangeSequencer, ChangeNotifier, ChangesService, StreamSlots],
  exports: [ChangeSequencer],
})
export class ChangesModule {}
