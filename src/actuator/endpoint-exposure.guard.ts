import { type CanActivate, type ExecutionContext, Injectable, NotFoundException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { noEndpointMessage } from '../common/errors/no-endpoint.js';
import { ActuatorExposure } from './actuator-exposure.js';

/** Names the actuator endpoint a controller or handler serves. */
export const ActuatorEndpoint = Reflector.createDecorator<string>();

/** An endpoint that is not exposed answers exactly as an unknown path does: 404. */
@Injectable()
export class EndpointExposureGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly exposure: ActuatorExposure,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const endpoint = this.reflector.getAllAndOverride(ActuatorEndpoint, [context.getHandler(), context.getClass()]);
    if (endpoint === undefined || this.exposure.isExposed(endpoint)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    throw new NotFoundException(noEndpointMessage(request.method, request.originalUrl.split('?')[0]));
  }
}
