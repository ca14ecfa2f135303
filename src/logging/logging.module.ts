import { type FactoryProvider, Logger as NestLogger, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Logger, LoggerModule } from 'nestjs-pino';
import { type HttpLogger, pinoHttp } from 'pino-http';
import type { AppConfig } from '../config/app-config.js';
import { pinoHttpOptions } from './pino-http.options.js';

/** The pino-http middleware; setupApp mounts it before the body parser, so rejected bodies are logged too. */
export const HTTP_LOGGER = 'HTTP_LOGGER';

const httpLogger: FactoryProvider<HttpLogger> = {
  provide: HTTP_LOGGER,
  inject: [ConfigService],
  useFactory: (config: ConfigService<AppConfig, true>) => pinoHttp(pinoHttpOptions(config.get('log', { infer: true }))),
};

/**
 * pino behind Nest's Logger: JSON lines in production, human-readable in development (LOG_FORMAT), a line
 * per request. nestjs-pino reuses the request logger that HTTP_LOGGER attached (`useExisting`), so every
 * log made while a request is handled carries its requestId.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      providers: [httpLogger],
      inject: [HTTP_LOGGER],
      useFactory: (http: HttpLogger) => ({ pinoHttp: { logger: http.logger, wrapSerializers: false }, useExisting: true }),
    }),
  ],
})
export class LoggingModule {
  constructor(logger: Logger) {
    // Take over as Nest's logger as soon as pino exists rather than once start-up is done: start-up itself logs,
    // e.g. each retry while the database is not reachable yet, and those lines must not wait in Nest's buffer.
    NestLogger.overrideLogger(logger);
    NestLogger.flush();
  }
}
