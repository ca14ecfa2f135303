import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import { isEndpointExposed } from '../config/management-config.js';

/** Which actuator endpoints are served over HTTP (Spring's management.endpoints.web.exposure.include). */
@Injectable()
export class ActuatorExposure {
  private readonly include: string[];

  constructor(config: ConfigService<AppConfig, true>) {
    this.include = config.get('management.exposure', { infer: true });
  }

  isExposed(endpoint: string): boolean {
    return isEndpointExposed(this.include, endpoint);
  }
}
