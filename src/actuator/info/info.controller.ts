import { Controller, Get, Req, Res, UseGuards } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import type { AppConfig } from '../../config/app-config.js';
import { ApiActuator, ApiInfo } from '../actuator.openapi.js';
import { actuatorBody } from '../actuator-response.js';
import { readPackageFacts } from '../../common/package-facts.js';
import { type AppInfo, appInfo } from './app-info.js';
import { ActuatorEndpoint, EndpointExposureGuard } from '../endpoint-exposure.guard.js';

@Controller('actuator/info')
@ApiActuator()
@ActuatorEndpoint('info')
@UseGuards(EndpointExposureGuard)
export class InfoController {
  private readonly info: AppInfo;

  constructor(config: ConfigService<AppConfig, true>) {
    // Read once: none of it changes while the process runs.
    this.info = appInfo(readPackageFacts(), config.get('management.info', { infer: true }), process.versions.node);
  }

  @Get()
  @ApiInfo()
  get(@Req() request: Request, @Res({ passthrough: true }) response: Response): AppInfo {
    return actuatorBody(request, response, this.info);
  }
}
