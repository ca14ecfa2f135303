import { Injectable, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthCheckService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import type { AppConfig } from '../../config/app-config.js';
import type { HealthDisclosure } from './health-disclosure.js';
import { healthGroups } from './health-groups.js';
import { AttachmentStorageHealthIndicator } from './indicators/attachment-storage.health.js';
import { AvailabilityStateHealthIndicator } from './indicators/availability-state.health.js';
import { DbHealthIndicator } from './indicators/db.health.js';
import { DiskSpaceHealthIndicator } from './indicators/disk-space.health.js';
import { OutboxHealthIndicator } from './indicators/outbox.health.js';
import { PingHealthIndicator } from './indicators/ping.health.js';
import { RabbitHealthIndicator } from './indicators/rabbit.health.js';
import { MailHealthIndicator } from './indicators/mail.health.js';
import { RedisHealthIndicator } from './indicators/redis.health.js';
import { aggregateStatus, type SpringComponent, type SpringSystemHealth, toSpringComponent, toSystemHealth } from './spring-health.js';

type Contributor = () => Promise<HealthIndicatorResult>;

/** Components whose status is shown but does not count towards the overall one. */
const INFORMATIONAL = ['mail', 'outbox', 'redis'];

const SHOW_ALL: HealthDisclosure = { components: true, details: true };

/** What `/actuator/health` and its sub-paths answer: Terminus runs the checks, spring-health.ts shapes the answer. */
@Injectable()
export class HealthService {
  private readonly contributors: Record<string, Contributor>;
  private readonly groups: Record<string, string[]>;

  constructor(
    private readonly terminus: HealthCheckService,
    db: DbHealthIndicator,
    diskSpace: DiskSpaceHealthIndicator,
    ping: PingHealthIndicator,
    rabbit: RabbitHealthIndicator,
    outbox: OutboxHealthIndicator,
    availability: AvailabilityStateHealthIndicator,
    redis: RedisHealthIndicator,
    attachmentStorage: AttachmentStorageHealthIndicator,
    mail: MailHealthIndicator,
    config: ConfigService<AppConfig, true>,
  ) {
    const management = config.get('management', { infer: true });
    this.contributors = {
      db: () => db.check('db'),
      diskSpace: () => diskSpace.check('diskSpace'),
      ping: () => ping.check('ping'),
      rabbit: () => rabbit.check('rabbit'),
      outbox: () => outbox.check('outbox'),
    };
    if (redis.configured) this.contributors.redis = () => redis.check('redis');
    if (mail.configured) this.contributors.mail = () => mail.check('mail');
    if (attachmentStorage.configured) this.contributors.attachmentStorage = () => attachmentStorage.check('attachmentStorage');
    if (management.probesEnabled) {
      this.contributors.livenessState = () => availability.liveness('livenessState');
      this.contributors.readinessState = () => availability.readiness('readinessState');
    }
    this.groups = healthGroups(management, Object.keys(this.contributors));
  }

  async health(): Promise<SpringSystemHealth> {
    const results = await this.check(Object.keys(this.contributors));
    return toSystemHealth(results, INFORMATIONAL, Object.keys(this.groups));
  }

  /**
   * One component with its details, or one group as just its status (decision 22). A component whose details are
   * hidden shows its status alone; with components hidden it is not found, as in Spring.
   */
  async component(name: string, shown: HealthDisclosure = SHOW_ALL): Promise<SpringComponent> {
    if (Object.hasOwn(this.groups, name)) {
      const results = await this.check(this.groups[name]);
      return { status: aggregateStatus(Object.values(results).map((result) => toSpringComponent(result).status)) };
    }
    if (Object.hasOwn(this.contributors, name) && shown.components) {
      const component = toSpringComponent((await this.check([name]))[name]);
      return shown.details ? component : { status: component.status };
    }
    throw new NotFoundException(`No health component or group named ${JSON.stringify(name)}`);
  }

  private async check(names: string[]): Promise<HealthIndicatorResult> {
    try {
      return (await this.terminus.check(names.map((name) => this.contributors[name]))).details;
    } catch (error) {
      // Terminus reports a DOWN component, and any check during shutdown, as a 503 that carries the full result.
      if (error instanceof ServiceUnavailableException) return (error.getResponse() as HealthCheckResult).details;
      throw error;
    }
  }
}
