import { METHODS } from 'node:http';

interface RouterLayer {
  match(path: string): boolean;
  route?: { methods: Record<string, boolean> };
}

/** The HTTP methods the Express router serves for a path; empty when the path is unknown. */
export function allowedMethods(expressApp: { router?: { stack: RouterLayer[] } }, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of expressApp.router?.stack ?? []) {
    if (!layer.route || !layer.match(path)) continue;
    // A route for every method is app-wide middleware (Nest mounts it with `app.all`), not an endpoint.
    if (Object.keys(layer.route.methods).length >= METHODS.length) continue;
    for (const [method, enabled] of Object.entries(layer.route.methods)) {
      if (enabled && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  return [...methods];
}
