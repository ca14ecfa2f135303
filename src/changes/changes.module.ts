import { Module } from '@nestjs/common';
import { ChangeFeedRepository } from './change-feed.repository.js';
import { ChangeNotifier } from './change-notifier.js';
import { ChangeSequencer } from './change-sequencer.js';
import { ChangeSequencerRepository } from './change-sequencer.repository.js';
import { ChangesController } from './changes.controller.js';
import { ChangesService } from './changes.service.js';
import { StreamSlots } from './stream-slots.js';
import { PeopleModule } from '../people/people.module.js';

/**
 * The change feed: the change log's rows (recorded by OutboxWriter in each write's transaction), numbered after
 * commit by the one sequencer, read by cursor as JSON (long-poll) or Server-Sent Events. The sequencer's numbers
 * are also the places webhook endpoints keep in the log (ChangeNotifier tells them when it moves).
 */
@Module({
  imports: [PeopleModule],
  controllers: [ChangesController],
  providers: [ChangeFeedRepository, ChangeSequencerRepository, ChangeSequencer, ChangeNotifier, ChangesService, StreamSlots],
  exports: [ChangeSequencer, ChangeNotifier],
})
export class ChangesModule {}
