import { Module } from '@nestjs/common';
import { HistoryController } from './history.controller.js';
import { HistoryRepository } from './history.repository.js';
import { HistoryService } from './history.service.js';
import { HistoryV2Controller } from './v2/history-v2.controller.js';

@Module({
  controllers: [HistoryController, HistoryV2Controller],
  providers: [HistoryService, HistoryRepository],
})
export class HistoryModule {}
