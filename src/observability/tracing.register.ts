/**
 * Starts OpenTelemetry before the service loads, when MANAGEMENT_TRACING_ENABLED=true. main.ts imports this file
 * before it imports the application: instrumentation patches http, express and mysql2 as they load, so it has to be
 * in place first. `node --import ./dist/observability/tracing.register.js dist/main.js` (or the same in NODE_OPTIONS)
 * still works: the module runs once. With tracing off this file reads the settings and stops: it imports no
 * OpenTelemetry module, so running with it costs nothing.
 */
import { readFileSync } from 'node:fs';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { type AppConfig, parseConfig } from '../config/app-config.js';
import { readPackageFacts } from '../common/package-facts.js';

const config = settings();
if (config?.management.tracing.enabled && isServiceEntry()) {
  const { startTracing } = await import('./tracing/otel-tracing.js');
  const { tracing, metrics, info } = config.management;
  const facts = readPackageFacts();
  await startTracing({
    serviceName: metrics.application ?? info.name ?? facts.name,
    serviceVersion: info.version ?? facts.version,
    endpoint: tracing.endpoint,
    samplingProbability: tracing.samplingProbability,
  }).catch((error: unknown) => {
    // Before the application and its logger exist: one JSON line, as a failed start-up says it (bootstrap.ts).
    const message = `Start-up failed: tracing could not start: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), context: 'Bootstrap', message })}\n`);
    process.exit(1);
  });
}

/** The settings as the service reads them (environment over `.env`); none when invalid: start-up reports that. */
function settings(): AppConfig | undefined {
  let dotEnv: Record<string, string> = {};
  try {
    dotEnv = parseEnv(readFileSync('.env', 'utf8')) as Record<string, string>;
  } catch {
    // No .env file: the environment alone.
  }
  try {
    return parseConfig({ ...dotEnv, ...process.env });
  } catch {
    return undefined;
  }
}

/**
 * Only the service itself is traced, not another node process that inherits NODE_OPTIONS (the image's
 * HEALTHCHECK runs `node -e`).
 */
function isServiceEntry(): boolean {
  const main = process.argv[1];
  if (!main) return false;
  try {
    return realpathSync(main) === realpathSync(fileURLToPath(new URL('../main.js', import.meta.url)));
  } catch {
    return false;
  }
}
