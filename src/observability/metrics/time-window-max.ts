/**
 * Micrometer's TimeWindowMax: the largest value recorded in roughly the last `expiryMs` (Spring's default
 * distribution expiry, 2 minutes), kept in a ring of `slots` maxima that rotates every expiryMs / slots. What
 * `_max` shows decays to 0 after a quiet window, as it does for the Spring service, rather than holding the
 * process's all-time maximum. One small array per series, no allocation per record.
 */
export class TimeWindowMax {
  private readonly ring: Float64Array;
  private current = 0;
  private lastRotate: number;
  private readonly rotateEveryMs: number;

  constructor(
    now: number,
    private readonly expiryMs = 120_000,
    slots = 3,
  ) {
    this.ring = new Float64Array(slots);
    this.rotateEveryMs = expiryMs / slots;
    this.lastRotate = now;
  }

  record(value: number, now: number): void {
    this.rotate(now);
    const ring = this.ring;
    for (let i = 0; i < ring.length; i++) if (value > ring[i]) ring[i] = value;
  }

  poll(now: number): number {
    this.rotate(now);
    return this.ring[this.current];
  }

  private rotate(now: number): void {
    let since = now - this.lastRotate;
    if (since < this.rotateEveryMs) return;
    if (since >= this.expiryMs) {
      this.ring.fill(0);
      this.current = 0;
      this.lastRotate = now - (since % this.rotateEveryMs);
      return;
    }
    do {
      this.ring[this.current] = 0;
      this.current = (this.current + 1) % this.ring.length;
      since -= this.rotateEveryMs;
      this.lastRotate += this.rotateEveryMs;
    } while (since >= this.rotateEveryMs);
  }
}
