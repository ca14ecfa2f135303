import { outsideRequestContext } from '../common/context/request-context.js';

/**
 * Runs `work` once right after the round of I/O the event loop is handling, however often it is asked for in that
 * round: before any timer, so a lone caller waits for nothing. It runs in no request's context, since it belongs
 * to every caller of the round.
 */
export class EndOfRound {
  private scheduled = false;

  constructor(private readonly work: () => void) {}

  request(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    outsideRequestContext(() => setImmediate(this.run));
  }

  private readonly run = (): void => {
    this.scheduled = false;
    this.work();
  };
}
