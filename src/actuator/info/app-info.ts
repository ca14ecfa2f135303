import type { PackageFacts } from '../../common/package-facts.js';
import type { AppConfig } from '../../config/app-config.js';

export interface AppInfo {
  app: { name: string; description: string; version: string };
  build: { artifact: string; name: string; version: string };
  node: { version: string };
}

/**
 * The `/actuator/info` body: `app` as Spring's `info.app.*` properties give it (configuration first, package.json
 * otherwise), `build` as Spring's build-info contributor, and the runtime where Spring's Java contributor would be.
 */
export function appInfo(pkg: PackageFacts, configured: AppConfig['management']['info'], nodeVersion: string): AppInfo {
  return {
    app: {
      name: configured.name ?? pkg.name,
      description: configured.description ?? pkg.description ?? '',
      version: configured.version ?? pkg.version,
    },
    build: { artifact: pkg.name, name: pkg.name, version: pkg.version },
    node: { version: nodeVersion },
  };
}
