import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';

/** Spring's LivenessState: BROKEN means only a restart can help. */
export type LivenessState = 'CORRECT' | 'BROKEN';
/** Spring's ReadinessState: whether the instance wants traffic routed to it. */
export type ReadinessState = 'ACCEPTING_TRAFFIC' | 'REFUSING_TRAFFIC';

/** The application's own availability, as the liveness and readiness probes report it. */
@Injectable()
export class ApplicationAvailability implements OnApplicationBootstrap {
  liveness: LivenessState = 'CORRECT';
  // Refusing until every module has started (database migrated, outbox relay running).
  readiness: ReadinessState = 'REFUSING_TRAFFIC';

  onApplicationBootstrap(): void {
    this.readiness = 'ACCEPTING_TRAFFIC';
  }

  refuseTraffic(): void {
    this.readiness = 'REFUSING_TRAFFIC';
  }
}
