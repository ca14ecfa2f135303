import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SlaGoals {
  firstResponse: string;
  resolution: string;
}

/**
 * Writes an SLA policy file whose priorities all use a 24x7 calendar, so that business time is wall time and a
 * test can state deadlines exactly; answers the settings that turn SLA on with it.
 */
export function slaPolicyEnv(
  goals: Partial<Record<'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL', SlaGoals>>,
  warningBefore = 'PT0S',
): Record<string, string> {
  const fallback: SlaGoals = { firstResponse: 'PT10H', resolution: 'PT20H' };
  const line = (priority: 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL') => {
    const { firstResponse, resolution } = goals[priority] ?? fallback;
    return `  ${priority}: { calendar: always, firstResponse: ${firstResponse}, resolution: ${resolution} }`;
  };
  const text = [
    'calendars:',
    '  always: 24x7',
    `warningBefore: ${warningBefore}`,
    'priorities:',
    ...(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const).map(line),
    '',
  ].join('\n');
  const file = join(mkdtempSync(join(tmpdir(), 'sla-policy-')), 'policy.yaml');
  writeFileSync(file, text);
  return { SLA_ENABLED: 'true', SLA_POLICY_FILE: file };
}
