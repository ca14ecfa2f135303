import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { RedisClient } from '../redis/redis.client.js';
import { RedisModule } from '../redis/redis.module.js';
import { AuthenticationFilter } from './authentication.filter.js';
import { AuthorizationFilter } from './authorization.filter.js';
import { CorsFilter } from './cors.filter.js';
import { RATE_LIMIT_STORE, RateLimitFilter } from './rate-limit.filter.js';
import { MemoryRateLimitStore, RedisRateLimitStore } from './rate-limit.store.js';

/**
 * The request's way in, before validation and controllers: where a browser may call from (CORS), who it is (authentication), what it may do
 * (authorization), how often it may (rate limit). Mounted by setupApp (securityFilters()), only for what is switched on.
 */
@Module({
  imports: [RedisModule],
  providers: [
    AuthenticationFilter,
    AuthorizationFilter,
    CorsFilter,
    RateLimitFilter,
    {
      // Shared by the replicas through Redis when it is configured (decision 30), else per process.
      provide: RATE_LIMIT_STORE,
      inject: [RedisClient, ConfigService],
      useFactory: (redis: RedisClient, config: ConfigService<AppConfig, true>) =>
        redis.connection ? new RedisRateLimitStore(redis.connection, config.get('redis.keyPrefix', { infer: true })) : new MemoryRateLimitStore(),
    },
  ],
  exports: [AuthenticationFilter, AuthorizationFilter, CorsFilter, RateLimitFilter],
})
export class SecurityModule {}
