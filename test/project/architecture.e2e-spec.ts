import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';

const ROOT = new URL('../..', import.meta.url).pathname;
const SRC = join(ROOT, 'src');

/** Files directly in src/ (main, bootstrap, the app module) form the folder "app". */
const APP = 'app';

/** Every .ts file under src/ that is not a unit spec, as a path from src/ with `/`. */
function sourceFiles(folder = SRC): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [relative(SRC, path).split('\\').join('/')] : [];
  });
}

/**
 * What a file imports: static `import … from`, `import '…'`, `export … from` and dynamic `import('…')`.
 * `import type` counts: a type names a concept of the folder it comes from, so a cycle through types is a cycle
 * between concerns all the same, even though the compiler erases it.
 */
function specifiersOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map(([, specifier]) => specifier));
}

const FILES = sourceFiles();
const SOURCES = new Map(FILES.map((file) => [file, readFileSync(join(SRC, file), 'utf8')]));

/** The file a relative specifier names, resolved against the importing file (`./x.js` is `./x.ts`). */
function resolveImport(from: string, specifier: string): string {
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [target.replace(/\.js$/, '.ts'), `${target}.ts`, `${target}/index.ts`];
  return candidates.find((candidate) => SOURCES.has(candidate)) ?? target;
}

/** The file graph: each source file with the source files it imports (relative imports only). */
const FILE_GRAPH = new Map(
  FILES.map((file) => [
    file,
    [
      ...new Set(
        specifiersOf(SOURCES.get(file)!)
          .filter((s) => s.startsWith('.'))
          .map((s) => resolveImport(file, s)),
      ),
    ],
  ]),
);

const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0] : APP);

/** The folder graph: an edge a → b for every file of a importing a file of b, with the imports behind it. */
function folderGraph(): { graph: Map<string, string[]>; because: Map<string, string[]> } {
  const graph = new Map<string, Set<string>>();
  const because = new Map<string, string[]>();
  for (const [file, imports] of FILE_GRAPH) {
    const from = folderOf(file);
    if (!graph.has(from)) graph.set(from, new Set());
    for (const imported of imports) {
      const to = folderOf(imported);
      if (to === from) continue;
      graph.get(from)!.add(to);
      const key = `${from} → ${to}`;
      because.set(key, [...(because.get(key) ?? []), `${file} → ${imported}`]);
    }
  }
  return { graph: new Map([...graph].map(([node, edges]) => [node, [...edges]])), because };
}

/** The strongly connected components of more than one node (Tarjan): each is a set of nodes on a common cycle. */
function cyclicComponents(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components;
}

/** One shortest cycle through `start` inside its component, as `a → b → … → a`. */
function cycleThrough(graph: Map<string, string[]>, start: string, component: Set<string>): string {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start].join(' → ');
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return start;
}

/** The cycles of a graph, one line per node of each cyclic component (every node's shortest way round). */
function describeCycles(graph: Map<string, string[]>): string[] {
  return cyclicComponents(graph).flatMap((component) => {
    const members = new Set(component);
    return [...new Set(component.map((node) => cycleThrough(graph, node, members)))];
  });
}

/** The top-level folders the folder map of docs/architecture.md names (`src/x/` in its first column). */
function mappedFolders(): string[] {
  const architecture = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = architecture.split(/^## Folder map\s*$/m)[1]?.split(/^## /m)[0] ?? '';
  const firstCells = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|')[1] ?? '');
  const names = firstCells.flatMap((cell) => [...cell.matchAll(/`src\/([\w-]+)\/`/g)].map(([, name]) => name));
  return [...new Set(names)].sort();
}

describe('Architecture', () => {
  it('finds the source files and their imports', () => {
    expect(FILES).toContain('main.ts');
    expect(FILE_GRAPH.get('main.ts')).toContain('bootstrap.ts');
  });

  it('has no cycle between the top-level folders of src/', () => {
    const { graph, because } = folderGraph();
    const cycles = describeCycles(graph);
    const edges = cyclicComponents(graph).flatMap((component) =>
      component.flatMap((from) =>
        (graph.get(from) ?? [])
          .filter((to) => component.includes(to))
          .map((to) => `  ${from} → ${to}: ${because.get(`${from} → ${to}`)!.join(', ')}`),
      ),
    );
    expect(cycles.length === 0 ? 'no folder cycle' : `folder cycles:\n${cycles.join('\n')}\nbecause:\n${edges.join('\n')}`).toBe(
      'no folder cycle',
    );
  });

  it('has no cycle between files', () => {
    const cycles = describeCycles(FILE_GRAPH);
    expect(cycles.length === 0 ? 'no file cycle' : `file cycles:\n${cycles.join('\n')}`).toBe('no file cycle');
  });

  it('keeps migrations frozen: they import typeorm and nothing else', () => {
    const imports = FILES.filter((file) => file.startsWith('database/migrations/')).flatMap((file) =>
      specifiersOf(SOURCES.get(file)!)
        .filter((specifier) => specifier !== 'typeorm')
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(FILES.some((file) => file.startsWith('database/migrations/'))).toBe(true);
    expect(imports).toEqual([]);
  });

  it('reaches the database driver only through src/database/', () => {
    const imports = FILES.filter((file) => !file.startsWith('database/')).flatMap((file) =>
      specifiersOf(SOURCES.get(file)!)
        .filter((specifier) => specifier === 'mysql2' || specifier.startsWith('mysql2/'))
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(imports).toEqual([]);
  });

  it("names in docs/architecture.md's folder map every top-level folder of src/ and no other", () => {
    const folders = readdirSync(SRC)
      .filter((name) => statSync(join(SRC, name)).isDirectory())
      .sort();
    expect(mappedFolders()).toEqual(folders);
  });

  it('resolves every relative import to a file of src/', () => {
    const unresolved = [...FILE_GRAPH].flatMap(([file, imports]) =>
      imports.filter((imported) => !SOURCES.has(imported)).map((imported) => `${file} → ${imported}`),
    );
    expect(unresolved).toEqual([]);
  });
});
