/** The service itself, imported by main.ts once tracing (when it is on) is in place. */
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { setupApp } from './app.setup.js';
import { ServiceExpressAdapter } from './common/http/express-adapter.js';
import type { AppConfig } from './config/app-config.js';
import { ConfigError } from './config/env-reader.js';
import { validatedSettings } from './config/config.module.js';
import { loadSlaPolicy } from './sla/sla-policy.js';
import { ActuatorExposure } from './actuator/actuator-exposure.js';
import { listeningMessage, serviceUrls } from './service-urls.js';

// Before its next full collection V8 lets the old generation grow to up to 4× what was live after the last one (the
// factor follows how fast collecting is); under large lists (10,000 tickets are several MB of rows and JSON per
// request) that is hundreds of MB of garbage held at once. A fixed 2× keeps the peak well below, for a few % of a
// large list's speed (see docs/performance.md, Memory).
v8.setFlagsFromString('--heap-growing-percent=100');

async function bootstrap(): Promise<void> {
  // The settings first: an invalid one ends start-up here (ConfigError), before Nest starts.
  const { sla } = await validatedSettings();
  // The SLA policy file too (SlaModule reads it again as it starts): a policy that cannot be used ends start-up here.
  if (sla.enabled) loadSlaPolicy(sla.policyFile);
  const app = setupApp(
    await NestFactory.create<NestExpressApplication>(AppModule, new ServiceExpressAdapter(), {
      bodyParser: false,
      bufferLogs: true,
    }),
  );
  await app.listen(app.get(ConfigService<AppConfig, true>).get('server.port', { infer: true }));
  // The port really listened on: SERVER_PORT=0 lets the system pick one.
  const { port } = app.getHttpServer().address() as AddressInfo;
  Logger.log(listeningMessage(port, serviceUrls(port, app.get(ActuatorExposure).isExposed('health'))), 'Bootstrap');
}

/** A failed start-up says why in one line; the stack adds nothing for an operator. */
function startUpFailed(error: unknown): never {
  const message = `Start-up failed: ${error instanceof Error ? error.message : String(error)}`;
  if (error instanceof ConfigError) {
    // Without valid settings there is no configured logger yet: one JSON line, as the logger would write it.
    process.stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), context: 'Bootstrap', message })}\n`);
  } else {
    Logger.error(message, undefined, 'Bootstrap');
    Logger.flush();
  }
  process.exit(1);
}

// Whatever else fails asynchronously during start-up, outside bootstrap()'s own chain, ends it the same way.
process.on('unhandledRejection', startUpFailed);
bootstrap().then(() => process.off('unhandledRejection', startUpFailed), startUpFailed);
