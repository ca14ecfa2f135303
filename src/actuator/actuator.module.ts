import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { OutboxModule } from '../outbox/outbox.module.js';
import { MailModule } from '../mail/mail.module.js';
import { MailHealthIndicator } from './health/indicators/mail.health.js';
import { RedisModule } from '../redis/redis.module.js';
import { ActuatorExposure } from './actuator-exposure.js';
import { ActuatorController } from './actuator.controller.js';
import { ApplicationAvailability } from './lifecycle/application-availability.js';
import { GracefulShutdown } from './lifecycle/graceful-shutdown.service.js';
import { HealthController } from './health/health.controller.js';
import { HealthDisclosurePolicy } from './health/health-disclosure.js';
import { HealthService } from './health/health.service.js';
import { AttachmentStorageHealthIndicator } from './health/indicators/attachment-storage.health.js';
import { AvailabilityStateHealthIndicator } from './health/indicators/availability-state.health.js';
import { DbHealthIndicator } from './health/indicators/db.health.js';
import { DiskSpaceHealthIndicator } from './health/indicators/disk-space.health.js';
import { OutboxHealthIndicator } from './health/indicators/outbox.health.js';
import { PingHealthIndicator } from './health/indicators/ping.health.js';
import { RabbitHealthIndicator } from './health/indicators/rabbit.health.js';
import { RedisHealthIndicator } from './health/indicators/redis.health.js';
import { InfoController } from './info/info.controller.js';
import { PrometheusController } from './prometheus/prometheus.controller.js';

/**
 * Spring Boot Actuator's HTTP face (/actuator links, health with probes, info, prometheus) and the lifecycle the probes
 * rely on (availability, graceful shutdown, HTTP drain).
 */
@Module({
  // Terminus' own logger is off: a probe every few seconds would repeat each outage, which the clients log already.
  imports: [TerminusModule.forRoot({ logger: false }), OutboxModule, RedisModule, MailModule],
  controllers: [ActuatorController, HealthController, InfoController, PrometheusController],
  providers: [
    ActuatorExposure,
    ApplicationAvailability,
    GracefulShutdown,
    HealthDisclosurePolicy,
    HealthService,
    AttachmentStorageHealthIndicator,
    AvailabilityStateHealthIndicator,
    DbHealthIndicator,
    DiskSpaceHealthIndicator,
    OutboxHealthIndicator,
    PingHealthIndicator,
    RabbitHealthIndicator,
    RedisHealthIndicator,
    MailHealthIndicator,
  ],
  exports: [ApplicationAvailability],
})
export class ActuatorModule {}
