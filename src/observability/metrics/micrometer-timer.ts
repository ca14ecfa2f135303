import { performance } from 'node:perf_hooks';
import { javaDouble } from './micrometer-buckets.js';
import { TimeWindowMax } from './time-window-max.js';

type Labels = Record<string, string>;

/** One series of a timer: its labels, rendered once, and what has been recorded in it. */
export class TimerSeries {
  count = 0;
  sum = 0;
  readonly max: TimeWindowMax;
  /** Non-cumulative counts per bucket; the last one is +Inf. */
  readonly buckets?: Float64Array;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[] | undefined,
  ) {
    this.max = new TimeWindowMax(performance.now());
    if (bounds) this.buckets = new Float64Array(bounds.length + 1);
  }

  record(seconds: number, now: number): void {
    this.count++;
    this.sum += seconds;
    this.max.record(seconds, now);
    const { buckets, bounds } = this;
    if (!buckets || !bounds) return;
    let index = 0;
    while (index < bounds.length && seconds > bounds[index]) index++;
    buckets[index]++;
  }
}

/** A sample as prom-client's registry renders it. */
interface Sample {
  value: number;
  labels: Labels;
  metricName?: string;
}

/** What prom-client's Registry needs of a metric to render it and list it. */
export interface RegistryMetric {
  name: string;
  help: string;
  type: 'summary' | 'histogram' | 'gauge';
  aggregator: 'sum' | 'max';
  get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: string }>;
  reset(): void;
}

/**
 * A Micrometer Timer as its Prometheus registry writes it: `<name>_count` and `<name>_sum` (a summary, or a
 * histogram with `_bucket{le}` when buckets are given) plus `<name>_max`, a separate gauge of the largest value
 * in the last two minutes. Series are created on first use and kept; callers bound their labels' values.
 */
export class MicrometerTimer {
  readonly series: TimerSeries[] = [];

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly bounds?: readonly number[],
  ) {}

  create(labels: Labels): TimerSeries {
    const series = new TimerSeries(labels, this.bounds);
    this.series.push(series);
    return series;
  }

  /** The two metrics to register: the timer itself and its `_max` gauge. */
  metrics(): RegistryMetric[] {
    const { name, help } = this;
    const timer: RegistryMetric = {
      name,
      help,
      type: this.bounds ? 'histogram' : 'summary',
      aggregator: 'sum',
      get: async () => ({ name, help, type: timer.type, aggregator: 'sum', values: this.samples() }),
      reset: () => this.series.splice(0),
    };
    const max: RegistryMetric = {
      name: `${name}_max`,
      help,
      type: 'gauge',
      aggregator: 'max',
      get: async () => {
        const now = performance.now();
        return {
          name: max.name,
          help,
          type: 'gauge',
          aggregator: 'max',
          values: this.series.map((s) => ({ value: s.max.poll(now), labels: s.labels })),
        };
      },
      reset: () => undefined,
    };
    return [timer, max];
  }

  private samples(): Sample[] {
    const samples: Sample[] = [];
    for (const series of this.series) {
      if (series.buckets && this.bounds) {
        let cumulative = 0;
        series.buckets.forEach((count, index) => {
          cumulative += count;
          const le = javaDouble(index < this.bounds!.length ? this.bounds![index] : Infinity);
          samples.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le }, value: cumulative });
        });
      }
      samples.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count });
      samples.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum });
    }
    return samples;
  }
}
