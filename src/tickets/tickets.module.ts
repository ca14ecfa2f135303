import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TicketsController } from './tickets.controller.js';
import { TicketsService } from './tickets.service.js';

@Module({
  imports: [OutboxModule],
  controllers: [TicketsController],
  providers: [TicketsService],
})
export class TicketsModule {}
