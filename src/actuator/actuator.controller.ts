import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ActuatorExposure } from './actuator-exposure.js';
import { type Link, actuatorLinks } from './actuator-links.js';
import { ApiActuator, ApiActuatorLinks } from './actuator.openapi.js';
import { actuatorBody } from './actuator-response.js';

@Controller('actuator')
@ApiActuator()
export class ActuatorController {
  constructor(private readonly exposure: ActuatorExposure) {}

  @Get()
  @ApiActuatorLinks()
  links(@Req() request: Request, @Res({ passthrough: true }) response: Response): { _links: Record<string, Link> } {
    const baseUrl = `${request.protocol}://${request.host || 'localhost'}/actuator`;
    return actuatorBody(
      request,
      response,
      actuatorLinks(baseUrl, (endpoint) => this.exposure.isExposed(endpoint)),
    );
  }
}
