/**
 * The `le` boundaries Micrometer gives a timer with percentiles-histogram on (PercentileHistogramBuckets), in
 * seconds: its fixed series of nanosecond values (1, 2, 3, then from each power of 4 in steps of a third), cut to
 * the expected range of a timer (1 ms to 30 s) with both ends included. The same boundaries as the Spring
 * service, so a dashboard's histogram_quantile over both gives comparable answers.
 */
export function micrometerTimerBuckets(minSeconds = 0.001, maxSeconds = 30): number[] {
  const min = Math.round(minSeconds * 1e9);
  const max = Math.round(maxSeconds * 1e9);
  const nanos = new Set<number>([min, max]);
  for (let exp = 2; exp < 64; exp += 2) {
    let current = 2 ** exp;
    const delta = Math.floor(current / 3);
    const next = current * 4 - delta;
    if (current > max) break;
    while (current < next) {
      if (current >= min && current <= max) nanos.add(current);
      current += delta;
    }
  }
  return [...nanos].sort((a, b) => a - b).map((value) => value / 1e9);
}

/** A boundary as Java prints a double, which is how Micrometer writes `le`: `30.0`, `0.001048576`. */
export function javaDouble(value: number): string {
  if (value === Infinity) return '+Inf';
  return Number.isInteger(value) ? `${value}.0` : String(value);
}
