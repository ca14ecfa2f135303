import { Global, Module } from '@nestjs/common';
import { TICKET_CLOCKS } from '../tickets/ticket-clocks.js';
import { SlaController } from './sla.controller.js';
import { SlaRepository } from './sla.repository.js';
import { SlaService } from './sla.service.js';
import { SlaV2Controller } from './v2/sla-v2.controller.js';

/**
 * SLA clocks. Global, so that tickets and comments get TICKET_CLOCKS (an interface of theirs) without importing
 * this module: the dependency points from here to them, never back.
 */
@Global()
@Module({
  controllers: [SlaController, SlaV2Controller],
  providers: [SlaService, SlaRepository, { provide: TICKET_CLOCKS, useExisting: SlaService }],
  exports: [TICKET_CLOCKS],
})
export class SlaModule {}
