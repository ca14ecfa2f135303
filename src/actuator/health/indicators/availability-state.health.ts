import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { ApplicationAvailability } from '../../lifecycle/application-availability.js';
import { SPRING_STATUS } from '../spring-health.js';

/** Spring's livenessState and readinessState components: the application's own state, no dependency. */
@Injectable()
export class AvailabilityStateHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly availability: ApplicationAvailability,
  ) {}

  /**
   * Never looks at the database or the broker: their outage must not make Kubernetes restart every pod.
   * That this answers at all shows the event loop turns; a blocked loop shows as a probe timeout.
   */
  liveness<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    const session = this.health.check(key);
    return Promise.resolve(this.availability.liveness === 'CORRECT' ? session.up() : session.down());
  }

  readiness<Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    const session = this.health.check(key);
    return Promise.resolve(
      this.availability.readiness === 'ACCEPTING_TRAFFIC' ? session.up() : session.down({ [SPRING_STATUS]: 'OUT_OF_SERVICE' }),
    );
  }
}
