import { fileURLToPath } from 'node:url';
import type { EnvReader } from './env-reader.js';

/** The policy that ships with the service: config/ at the project's root, two levels above this file in src/ and dist/. */
export const DEFAULT_SLA_POLICY_FILE = fileURLToPath(new URL('../../config/sla-policy.yaml', import.meta.url));

export interface SlaConfig {
  enabled: boolean;
  /** The policy's file; SLA reads and checks it (src/sla/sla-policy.ts) only when SLA is enabled. */
  policyFile: string;
}

export function parseSlaConfig(read: EnvReader): SlaConfig {
  return { enabled: read.bool('SLA_ENABLED', false), policyFile: read.string('SLA_POLICY_FILE', DEFAULT_SLA_POLICY_FILE) };
}
