import { readFileSync } from 'node:fs';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express } from 'express';
import { parse as parseYaml } from 'yaml';

/** Where the event contract is served, next to the OpenAPI document. */
export const ASYNCAPI_PATHS = { yaml: '/asyncapi.yaml', json: '/asyncapi.json' } as const;

/** docs/asyncapi.yaml: two levels above this file, in src/ and in the compiled output alike (the image copies it). */
const ASYNCAPI_FILE = new URL('../../docs/asyncapi.yaml', import.meta.url);

/**
 * Serves the AsyncAPI document of the events as written (YAML) and as JSON. It is read once, at start-up, so an
 * installation that lacks it fails to start instead of answering 404 to the consumers who look for it.
 */
export function serveAsyncApi(app: NestExpressApplication): void {
  const yaml = readFileSync(ASYNCAPI_FILE, 'utf8');
  const json = JSON.stringify(parseYaml(yaml));
  const http: Express = app.getHttpAdapter().getInstance();
  // application/yaml is the registered YAML media type (RFC 9512).
  http.get(ASYNCAPI_PATHS.yaml, (_req, res) => res.type('application/yaml; charset=utf-8').send(yaml));
  http.get(ASYNCAPI_PATHS.json, (_req, res) => res.type('application/json; charset=utf-8').send(json));
}
