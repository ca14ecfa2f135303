// The service as the Nest documentation and most tutorials build it, untuned: a TypeORM entity and repository,
// a global ValidationPipe over class-validator DTOs, ParseIntPipe on the id, and the stock ClientRMQ emitting an
// event after each write. No outbox, request log, security headers or error-shape mapping. `npm run bench`
// measures the service against it (bench/run.mjs).
import 'reflect-metadata';
import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
app.useGlobalPipes(new ValidationPipe({ transform: true, whitelist: true }));
app.enableShutdownHooks();
await app.listen(Number(process.env.SERVER_PORT ?? 3000));
