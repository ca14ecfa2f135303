import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { setupApp } from './app.setup.js';
import type { AppConfig } from './config/app-config.js';

async function bootstrap(): Promise<void> {
  const app = setupApp(await NestFactory.create<NestExpressApplication>(AppModule, { bodyParser: false, bufferLogs: true }));
  const port = app.get(ConfigService<AppConfig, true>).get('server.port', { infer: true });
  await app.listen(port);
  Logger.log(`Ticket service listening on port ${port}`, 'Bootstrap');
}

bootstrap().catch((error: unknown) => {
  // A failed start-up says why in one line; the stack adds nothing for an operator.
  Logger.error(`Start-up failed: ${error instanceof Error ? error.message : String(error)}`, undefined, 'Bootstrap');
  process.exit(1);
});
