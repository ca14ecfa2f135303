import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { ActuatorModule } from '../actuator/actuator.module.js';
import { TICKET_SLA_SUMMARIES } from '../tickets/ticket-sla-summaries.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { SlaController } from './sla.controller.js';
import { SlaDetector } from './sla.detector.js';
import { SlaMetrics } from './sla.metrics.js';
import { SlaReconciler } from './sla.reconciler.js';
import { SlaRepository } from './sla.repository.js';
import { SlaService } from './sla.service.js';
import { SlaV2Controller } from './v2/sla-v2.controller.js';
import { loadSlaPolicy, SLA_POLICY } from './sla-policy.js';

/**
 * SLA clocks. SlaService hooks into ticket writes (TicketWriteHook) and provides the v2 bodies' summaries; global, so
 * that tickets get TICKET_SLA_SUMMARIES (an interface of theirs) without importing this module: the dependency points
 * from here to them, never back.
 */
@Global()
@Module({
  imports: [OutboxModule, ActuatorModule],
  controllers: [SlaController, SlaV2Controller],
  providers: [
    SlaService,
    SlaRepository,
    SlaDetector,
    SlaReconciler,
    SlaMetrics,
    { provide: TICKET_SLA_SUMMARIES, useExisting: SlaService },
    {
      provide: SLA_POLICY,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AppConfig, true>) => {
        const { enabled, policyFile } = config.get('sla', { infer: true });
        return enabled ? loadSlaPolicy(policyFile) : null;
      },
    },
  ],
  exports: [TICKET_SLA_SUMMARIES],
})
export class SlaModule {}
