import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request } from 'express';
import type { AppConfig } from '../../config/app-config.js';
import type { ShowDetails } from '../../config/management-config.js';
import { SCOPES } from '../../security/access-rules.js';
import { hasScope, principalOf } from '../../common/context/principal.js';

/** How much of the health a request is shown, as Spring's HealthEndpointGroup decides it. */
export interface HealthDisclosure {
  components: boolean;
  details: boolean;
}

/**
 * `show-components` and `show-details` (`always`, `when-authorized`, `never`) applied to one request:
 * when-authorized means a valid bearer token with the `actuator.read` scope. The overall status, and with it
 * 200/503, is shown to everyone, and the probe groups always answer their status alone.
 */
@Injectable()
export class HealthDisclosurePolicy {
  private readonly settings: { showDetails: ShowDetails; showComponents: ShowDetails };

  constructor(config: ConfigService<AppConfig, true>) {
    this.settings = config.get('management.health', { infer: true });
  }

  for(request: Request): HealthDisclosure {
    const authorized = hasScope(principalOf(request), SCOPES.actuator);
    const shown = (setting: ShowDetails) => setting === 'always' || (setting === 'when-authorized' && authorized);
    return { components: shown(this.settings.showComponents), details: shown(this.settings.showDetails) };
  }
}
