import { Module } from '@nestjs/common';
import { TagsController } from './tags.controller.js';
import { TagsRepository } from './tags.repository.js';

/** Tags (docs/api.md#tags): their rows and the list of those in use; a ticket's tags are written by its writes (src/tickets/). */
@Module({
  controllers: [TagsController],
  providers: [TagsRepository],
  exports: [TagsRepository],
})
export class TagsModule {}
