import { readFileSync } from 'node:fs';

/** What package.json says of the service: the info endpoint, the OpenAPI document and the traces name it. */
export interface PackageFacts {
  name: string;
  description?: string;
  version: string;
}

/** The project's package.json: two levels above this file, in src/ and in the compiled output alike. */
export function readPackageFacts(): PackageFacts {
  const { name, description, version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  return { name, description, version };
}
