import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppConfig } from '../../config/app-config.js';
import { ApplicationAvailability } from './application-availability.js';
import { HttpDrain } from './http-drain.js';

/**
 * The first step of a shutdown (SIGTERM, SIGINT or app.close()): readiness goes OUT_OF_SERVICE, the HTTP server
 * stops accepting and the requests in flight are answered, within SERVER_SHUTDOWN_TIMEOUT_MS. Nest runs this
 * before any module's onApplicationShutdown, which is where the broker and database connections close.
 */
@Injectable()
export class GracefulShutdown implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  private readonly server: AppConfig['server'];
  private drain?: HttpDrain;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly availability: ApplicationAvailability,
    config: ConfigService<AppConfig, true>,
  ) {
    this.server = config.get('server', { infer: true });
  }

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (server) this.drain = new HttpDrain(server);
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.availability.refuseTraffic();
    this.logger.log(`Shutting down${signal ? ` on ${signal}` : ''}: readiness is OUT_OF_SERVICE`);
    if (this.server.shutdownDelayMs > 0) await sleep(this.server.shutdownDelayMs);
    if (!this.drain) return;
    const pending = this.drain.pending;
    const drained = await this.drain.close(this.server.shutdownTimeoutMs);
    if (drained) this.logger.log(`HTTP server closed; ${pending} request(s) in flight were answered`);
    else this.logger.warn(`HTTP server closed; requests still running after ${this.server.shutdownTimeoutMs} ms were cut off`);
  }
}
