import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { OutboxModule } from '../outbox/outbox.module.js';
import { RedisModule } from '../redis/redis.module.js';
import { ActuatorExposure } from './actuator-exposure.js';
import { ActuatorController } from './actuator.controller.js';
import { ApplicationAvailability } from './application-availability.js';
import { GracefulShutdown } from './graceful-shutdown.service.js';
import { HealthController } from './health.controller.js';
import { HealthDisclosurePolicy } from './health-disclosure.js';
import { HealthService } from './health.service.js';
import { AvailabilityStateHealthIndicator } from './indicators/availability-state.health.js';
import { DbHealthIndicator } from './indicators/db.health.js';
import { DiskSpaceHealthIndicator } from './indicators/disk-space.health.js';
import { OutboxHealthIndicator } from './indicators/outbox.health.js';
import { PingHealthIndicator } from './indicators/ping.health.js';
import { RabbitHealthIndicator } from './indicators/rabbit.health.js';
import { RedisHealthIndicator } from './indicators/redis.health.js';
import { InfoController } from './info.controller.js';

/** Spring Boot Actuator's HTTP face (/actuator, health with probes, info) and the graceful shutdown probes rely on. */
@Module({
  // Terminus' own logger is off: a probe every few seconds would repeat each outage, which the clients log already.
  imports: [TerminusModule.forRoot({ logger: false }), OutboxModule, RedisModule],
  controllers: [ActuatorController, HealthController, InfoController],
  providers: [
    ActuatorExposure,
    ApplicationAvailability,
    GracefulShutdown,
    HealthDisclosurePolicy,
    HealthService,
    AvailabilityStateHealthIndicator,
    DbHealthIndicator,
    DiskSpaceHealthIndicator,
    OutboxHealthIndicator,
    PingHealthIndicator,
    RabbitHealthIndicator,
    RedisHealthIndicator,
  ],
})
export class HealthModule {}
