declare module 'parse-prometheus-text-format' {
  /** Parses Prometheus text exposition (0.0.4) into metric families; throws on an invalid line. */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
