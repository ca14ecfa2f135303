import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';

/** Spring's LivenessState: BROKEN means only a restart can help. */
export type LivenessState = 'CORRECT' | 'BROKEN';
/** Spring's ReadinessState: whether the instance wants traffic routed to it. */
export type ReadinessState = 'ACCEPTING_TRAFFIC' | 'REFUSING_TRAFFIC';

/** The application's own availability, as the liveness and readiness probes report it. */
@Injectable()
export class ApplicationAvailability implements OnApplicationBootstrap {
  liveness: LivenessState = 'CORRECT';
  private started = false;
  private shuttingDown = false;
  private readonly warmingUp = new Set<Promise<unknown>>();

  /**
   * Refusing until every module has started (database migrated, outbox relay running) and the start-up work that
   * goes on after the server listens has settled; refusing again once the shutdown has begun.
   */
  get readiness(): ReadinessState {
    return this.started && !this.shuttingDown && this.warmingUp.size === 0 ? 'ACCEPTING_TRAFFIC' : 'REFUSING_TRAFFIC';
  }

  onApplicationBootstrap(): void {
    this.started = true;
  }

  /** Start-up work that the server does not wait for before it listens: readiness refuses until it has settled, either way. */
  refuseTrafficUntil(work: Promise<unknown>): void {
    this.warmingUp.add(work);
    const settled = () => this.warmingUp.delete(work);
    void work.then(settled, settled);
  }

  refuseTraffic(): void {
    this.shuttingDown = true;
  }
}
