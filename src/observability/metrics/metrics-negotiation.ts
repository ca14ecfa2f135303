/** What /actuator/prometheus can answer: the 0.0.4 text format first, so that it wins a tie (as from Spring). */
const OFFERS = [
  { type: 'text/plain', versions: ['0.0.4'] },
  { type: 'application/openmetrics-text', versions: ['1.0.0', '0.0.1'] },
];

interface MediaRange {
  type: string;
  version?: string;
  q: number;
}

/**
 * Whether a scraper's Accept prefers OpenMetrics to the 0.0.4 text format. An offer takes the q of the most specific
 * range that matches it; of a range's parameters only `version` has to match, as Prometheus' own negotiation does:
 * `charset=utf-8` (2.x) and `escaping=…` (3.x) change nothing here. No match, or a tie: 0.0.4.
 */
export function prefersOpenMetrics(accept: string | undefined): boolean {
  const ranges = parseAccept(accept ?? '*/*');
  const [text, openMetrics] = OFFERS.map((offer) => qualityOf(offer, ranges));
  return openMetrics > text;
}

function parseAccept(accept: string): MediaRange[] {
  return accept.split(',').flatMap((part) => {
    const [range, ...parameters] = part.split(';').map((item) => item.trim());
    if (!/^[^/\s]+\/[^/\s]+$/.test(range)) return [];
    const values = new Map(
      parameters.map((parameter) => {
        const at = parameter.indexOf('=');
        return [
          parameter.slice(0, at).trim().toLowerCase(),
          parameter
            .slice(at + 1)
            .trim()
            .replace(/^"(.*)"$/, '$1'),
        ] as const;
      }),
    );
    const q = values.has('q') ? Number(values.get('q')) : 1;
    return Number.isFinite(q) ? [{ type: range.toLowerCase(), version: values.get('version'), q }] : [];
  });
}

/** `*\/*` < `type/*` < `type/subtype` < `type/subtype;version=…` */
function specificity(range: MediaRange): number {
  if (range.type === '*/*') return 0;
  if (range.type.endsWith('/*')) return 1;
  return range.version === undefined ? 2 : 3;
}

function matches(range: MediaRange, offer: (typeof OFFERS)[number]): boolean {
  const typeMatches = range.type === '*/*' || range.type === offer.type || range.type === `${offer.type.split('/')[0]}/*`;
  return typeMatches && (range.version === undefined || offer.versions.includes(range.version));
}

function qualityOf(offer: (typeof OFFERS)[number], ranges: MediaRange[]): number {
  const matching = ranges.filter((range) => matches(range, offer));
  const most = Math.max(-1, ...matching.map(specificity));
  return Math.max(0, ...matching.filter((range) => specificity(range) === most).map((range) => range.q));
}
