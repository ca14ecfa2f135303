import { type FactoryProvider, Logger as NestLogger, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Logger, LoggerModule } from 'nestjs-pino';
import { type DestinationStream, pino, type Logger as PinoLogger } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { loggerOptions } from './logger-options.js';

/** The service's one pino logger: Nest's Logger writes through it, and setupApp mounts its request log (requestLog). */
export const ROOT_LOGGER = 'ROOT_LOGGER';

/**
 * The stream the root logger writes JSON lines to (LOG_FORMAT=json), held here so that the request log can write its
 * line there directly (requestLog); null in the pretty format, whose lines go through pino-pretty's transport.
 */
export const LOG_DESTINATION = 'LOG_DESTINATION';

const logDestination: FactoryProvider<DestinationStream | null> = {
  provide: LOG_DESTINATION,
  inject: [ConfigService],
  // pino's own default destination: standard output through sonic-boom, asynchronous, flushed at exit.
  useFactory: (config: ConfigService<AppConfig, true>) =>
    config.get('log.format', { infer: true }) === 'json' ? pino.destination({ dest: process.stdout.fd || 1 }) : null,
};

const rootLogger: FactoryProvider<PinoLogger> = {
  provide: ROOT_LOGGER,
  inject: [ConfigService, LOG_DESTINATION],
  useFactory: (config: ConfigService<AppConfig, true>, destination: DestinationStream | null) => {
    const options = loggerOptions(config.get('log', { infer: true }));
    return destination ? pino(options, destination) : pino(options);
  },
};

/**
 * pino behind Nest's Logger: JSON lines in production, human-readable in development (LOG_FORMAT), a line
 * per request. nestjs-pino mounts no middleware of its own (`forRoutes: []`): the request id reaches every line
 * written during a request through the request context (see loggerOptions), not through a logger per request.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      providers: [logDestination, rootLogger],
      inject: [ROOT_LOGGER],
      useFactory: (logger: PinoLogger) => ({ pinoHttp: { logger, wrapSerializers: false }, useExisting: true, forRoutes: [] }),
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
