import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The documentation: the README and every Markdown file in docs/, as paths from the project folder. */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks, line by line (a `#` in a shell example is no heading, a `[x](y)` in JSON no link). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence === undefined) lines.push(line);
  }
  return lines;
}

/**
 * GitHub's anchor for a heading: its text without Markdown (link targets, emphasis), lower case, every character
 * that is not a letter, digit, space, `-` or `_` removed, each space turned into `-`.
 */
function githubSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page offers: one per heading, a repeated one suffixed -1, -2, … as GitHub does. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every inline link target of a page (`[text](target)`, `![alt](target)`), outside code blocks and code spans. */
function linksOf(markdown: string): string[] {
  const prose = proseLines(markdown)
    .join('\n')
    .replace(/(`+)[\s\S]*?\1/g, '');
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(([, target]) => target);
}

/** Why a link of `page` does not resolve, or undefined when it does. External links (with a scheme) are not followed. */
function deadLink(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? page : relative(ROOT, join(ROOT, dirname(page), decodeURIComponent(path)));
  if (file.startsWith('..') || !existsSync(join(ROOT, file))) return `${target}: no file ${file}`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith('.md')) return `${target}: an anchor into ${file}, which is not Markdown`;
  return anchorsOf(read(file)).has(anchor) ? undefined : `${target}: no heading with anchor #${anchor} in ${file}`;
}

/**
 * The environment variables the service reads: the names passed to the config readers (`read.int('DB_PORT', …)`,
 * `read.has(…)`, `read.first(…)`) anywhere in src, every `process.env` name, and in src/config every quoted
 * variable name (alternatives such as `'REDIS_URL'`) and every name built from a constant prefix (`${JWT}AUDIENCES`).
 */
function settingsReadBySource(): string[] {
  const files = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? files(`${dir}/${entry.name}`)
        : entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')
          ? [`${dir}/${entry.name}`]
          : [],
    );
  const names = new Set<string>();
  for (const file of files('src')) {
    const source = read(file);
    for (const [, name] of source.matchAll(/\bread\.\w+\(\s*['"`]([A-Z][A-Z0-9_]*)['"`]/g)) names.add(name);
    for (const [, dotted, indexed] of source.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\])/g)) {
      names.add(dotted ?? indexed);
    }
    if (!file.startsWith('src/config/')) continue;
    // Names in comments (`WHEN_AUTHORIZED` as a value's spelling) are not read; code is.
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const [, name] of code.matchAll(/['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"`]/g)) names.add(name);
    const prefixes = new Map([...code.matchAll(/const (\w+) = '([A-Z][A-Z0-9_]*)';/g)].map(([, constant, value]) => [constant, value]));
    for (const [, constant, rest] of code.matchAll(/`\$\{(\w+)\}([A-Z0-9_]+)`/g)) {
      if (prefixes.has(constant)) names.add(prefixes.get(constant)! + rest);
    }
  }
  return [...names].sort();
}

describe('Documentation', () => {
  it('has the README and one page per question in docs/', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/api.md', 'docs/decisions.md']));
  });

  it('keeps the README the front door: at most 250 lines, linking every page of docs/', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    const linked = linksOf(readme).map((target) => target.split('#')[0]);
    expect(PAGES.filter((page) => page !== 'README.md' && !linked.includes(page))).toEqual([]);
  });

  it.each(PAGES)('%s: every relative link and #anchor resolves', (page) => {
    const dead = linksOf(read(page))
      .map((target) => deadLink(page, target))
      .filter((reason) => reason !== undefined);
    expect(dead).toEqual([]);
  });

  it('anchors follow GitHub: lower case, punctuation dropped but - and _, spaces to -, repeats numbered', () => {
    expect(githubSlug('API version 2 (`/api/v2/tickets`)')).toBe('api-version-2-apiv2tickets');
    expect(githubSlug("The outbox's guarantees")).toBe('the-outboxs-guarantees');
    expect(githubSlug('Idempotency-Key: retrying a create_safely')).toBe('idempotency-key-retrying-a-create_safely');
    expect(githubSlug('List queries on 1,000,000 tickets')).toBe('list-queries-on-1000000-tickets');
    expect([...anchorsOf('# A\n## Usage\n```bash\n# not a heading\n```\n### Usage\n## Usage')]).toEqual([
      'a',
      'usage',
      'usage-1',
      'usage-2',
    ]);
  });

  it('docs/configuration.md names every environment variable the code reads', () => {
    const names = settingsReadBySource();
    expect(names).toEqual(
      expect.arrayContaining([
        'SERVER_PORT',
        'PORT',
        'DB_QUERY_TIMEOUT_MS',
        'REDIS_URL',
        'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUER_URI',
      ]),
    );
    const documented = read('docs/configuration.md');
    expect(names.filter((name) => !documented.includes(`\`${name}\``))).toEqual([]);
  });

  it('docs/configuration.md lists in its tables no variable the code does not read', () => {
    const names = new Set(settingsReadBySource());
    const firstCells = read('docs/configuration.md')
      .split('\n')
      .filter((line) => /^\| `/.test(line))
      .map((line) => line.split(' | ')[0]);
    const listed = firstCells.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map(([, name]) => name));
    expect(listed.filter((name) => !names.has(name))).toEqual([]);
  });

  it('every decision the code cites is written in docs/decisions.md', () => {
    const sources = ['src', 'test'].flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
        .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8')),
    );
    const cited = new Set<number>();
    for (const source of sources) {
      for (const [, first, last] of source.matchAll(/\bdecisions? (\d+)(?:\s*[–-]\s*(\d+))?/g)) {
        for (let n = Number(first); n <= Number(last ?? first); n++) cited.add(n);
      }
    }
    expect(cited.size).toBeGreaterThan(0);
    const written = new Set([...read('docs/decisions.md').matchAll(/^### (\d+)\. /gm)].map(([, n]) => Number(n)));
    expect([...cited].filter((n) => !written.has(n))).toEqual([]);
  });
});
