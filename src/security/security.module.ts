import { Module } from '@nestjs/common';
import { AuthenticationFilter } from './authentication.filter.js';
import { AuthorizationFilter } from './authorization.filter.js';

/**
 * The request's way in, before validation and controllers: who it is (authentication), what it may do
 * (authorization). Mounted by applySecurity(), only for what is switched on.
 */
@Module({
  providers: [AuthenticationFilter, AuthorizationFilter],
  exports: [AuthenticationFilter, AuthorizationFilter],
})
export class SecurityModule {}
