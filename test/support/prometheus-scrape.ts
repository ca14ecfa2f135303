import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** A metric family as parse-prometheus-text-format returns it. */
export interface Family {
  name: string;
  help: string;
  type: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string; count?: string; sum?: string }>;
}

/**
 * Parses a scrape with parse-prometheus-text-format, which throws on a line that is not valid exposition text.
 * Its histogram support merges all series of a family into one and drops their labels, so a histogram's lines are
 * read as untyped samples (`_bucket`, `_count`, `_sum` each a family of its own, labels kept).
 */
export function parseScrape(text: string): Map<string, Family> {
  const untypedHistograms = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
  const families = parsePrometheusTextFormat(untypedHistograms) as Family[];
  return new Map(families.map((family) => [family.name, family]));
}

/** The series of a family whose labels include `labels`. */
export function seriesOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): Family['metrics'] {
  const family = families.get(name);
  if (!family) return [];
  return family.metrics.filter((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value));
}

/** The one value (or a summary's count) of the series matching `labels`; 0 when there is none yet. */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const series = seriesOf(families, name, labels);
  if (series.length > 1) throw new Error(`${series.length} series of ${name} match ${JSON.stringify(labels)}`);
  const [metric] = series;
  return metric === undefined ? 0 : Number(metric.count ?? metric.value);
}

/** All series of all families, as `name{labels}` strings: what a scrape adds to Prometheus' index. */
export function seriesKeys(families: Map<string, Family>): Set<string> {
  const keys = new Set<string>();
  for (const family of families.values()) {
    for (const metric of family.metrics) keys.add(`${family.name}${JSON.stringify(metric.labels ?? {})}`);
  }
  return keys;
}
