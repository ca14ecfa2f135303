import { ConfigError } from '../../config/env-reader.js';
import type { AppConfig } from '../../config/app-config.js';

/** The filesystem storage's component, present when ATTACHMENTS_DIRECTORY is set. */
const ATTACHMENT_STORAGE = 'attachmentStorage';

/**
 * Spring's health groups: with probes on, `liveness` is the process itself and `readiness` what
 * MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE names, plus `attachmentStorage` when there is one. A member that
 * does not exist stops start-up, as Spring Boot's group-membership validation does, rather than silently never being
 * checked.
 */
export function healthGroups(management: AppConfig['management'], components: string[]): Record<string, string[]> {
  if (!management.probesEnabled) return {};
  const unknown = management.readinessInclude.filter((name) => !components.includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE names unknown health components: ${unknown.join(', ')}` +
        ` (known: ${components.join(', ')})`,
    );
  }
  // Uploads fail while the attachment storage cannot be written, so it decides readiness wherever it exists.
  const storage = components.includes(ATTACHMENT_STORAGE) && !management.readinessInclude.includes(ATTACHMENT_STORAGE);
  return { liveness: ['livenessState'], readiness: [...management.readinessInclude, ...(storage ? [ATTACHMENT_STORAGE] : [])] };
}
