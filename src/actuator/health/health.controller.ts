import { Controller, Get, Param, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiActuator, ApiHealth, ApiHealthComponent } from '../actuator.openapi.js';
import { actuatorBody } from '../actuator-response.js';
import { ActuatorEndpoint, EndpointExposureGuard } from '../endpoint-exposure.guard.js';
import { HealthDisclosurePolicy } from './health-disclosure.js';
import { HealthService } from './health.service.js';
import { type SpringComponent, type SpringSystemHealth, withoutHidden } from './spring-health.js';

@Controller('actuator/health')
@ApiActuator()
@ActuatorEndpoint('health')
@UseGuards(EndpointExposureGuard)
export class HealthController {
  constructor(
    private readonly health: HealthService,
    private readonly disclosure: HealthDisclosurePolicy,
  ) {}

  @Get()
  @ApiHealth()
  async all(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Partial<SpringSystemHealth>> {
    return actuatorBody(request, response, withoutHidden(await this.health.health(), this.disclosure.for(request)));
  }

  /** One component (`db`) or, with probes on, one group (`liveness`, `readiness`). */
  @Get(':name')
  @ApiHealthComponent()
  async one(
    @Param('name') name: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SpringComponent> {
    return actuatorBody(request, response, await this.health.component(name, this.disclosure.for(request)));
  }
}
