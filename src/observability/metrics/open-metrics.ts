import type { MetricObjectWithValues, MetricValue } from 'prom-client';

/**
 * The OpenMetrics 1.0 text of prom-client's metrics, for a scraper whose Accept asks for it. Rendered here rather
 * than by switching the registry's content type, which renames counters in place (`_total` dropped from their
 * names) and would leak into the next 0.0.4 scrape: a counter's family is its name without `_total`, and each
 * of its samples carries the suffix.
 */
export function openMetricsText(metrics: Array<MetricObjectWithValues<MetricValue<string>>>): string {
  const lines: string[] = [];
  for (const metric of metrics) {
    const counter = String(metric.type) === 'counter';
    const family = counter ? metric.name.replace(/_total$/, '') : metric.name;
    lines.push(`# TYPE ${family} ${metric.type}`, `# HELP ${family} ${escape(metric.help)}`);
    for (const sample of metric.values) {
      const name = counter ? `${family}_total` : ((sample as { metricName?: string }).metricName ?? metric.name);
      const labels = Object.entries(sample.labels)
        .filter(([, value]) => value !== undefined)
        .map(([label, value]) => `${label}="${escape(String(value)).replace(/"/g, '\\"')}"`);
      lines.push(`${name}${labels.length > 0 ? `{${labels.join(',')}}` : ''} ${number(sample.value)}`);
    }
  }
  lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}

function escape(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function number(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
