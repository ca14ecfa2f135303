import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { RedisClient } from '../redis/redis.client.js';
import { RedisModule } from '../redis/redis.module.js';
import { AuthenticationMiddleware } from './middleware/authentication.middleware.js';
import { AuthorizationMiddleware } from './middleware/authorization.middleware.js';
import { CorsMiddleware } from './middleware/cors.middleware.js';
import { RATE_LIMIT_STORE, RateLimitMiddleware } from './middleware/rate-limit.middleware.js';
import { MemoryRateLimitStore, RedisRateLimitStore } from './rate-limit.store.js';

/**
 * The request's way in, before validation and controllers: where a browser may call from (CORS), who it is (authentication), what it may do
 * (authorization), how often it may (rate limit). Mounted by setupApp (securityMiddleware()), only for what is switched on.
 */
@Module({
  imports: [RedisModule],
  providers: [
    AuthenticationMiddleware,
    AuthorizationMiddleware,
    CorsMiddleware,
    RateLimitMiddleware,
    {
      // Shared by the replicas through Redis when it is configured (decision 30), else per process.
      provide: RATE_LIMIT_STORE,
      inject: [RedisClient, ConfigService],
      useFactory: (redis: RedisClient, config: ConfigService<AppConfig, true>) =>
        redis.connection
          ? new RedisRateLimitStore(redis.connection, config.get('redis.keyPrefix', { infer: true }))
          : new MemoryRateLimitStore(),
    },
  ],
  exports: [AuthenticationMiddleware, AuthorizationMiddleware, CorsMiddleware, RateLimitMiddleware],
})
export class SecurityModule {}
