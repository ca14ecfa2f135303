import { appendFileSync } from 'node:fs';

let file;

export async function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, `import ${resolved.url}\n`);
  return resolved;
}
