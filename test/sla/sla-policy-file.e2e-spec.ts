import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess } from '../support/service-process.js';

describe('SLA policy file', () => {
  it('with a !!js/function tag ends start-up with exit code 1 and one line naming the tag, no YAMLWarning', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sla-policy-')), 'policy.yaml');
    writeFileSync(
      file,
      [
        'calendars:',
        '  always: !!js/function "function () { return \'24x7\' }"',
        'priorities:',
        ...['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'].map((p) => `  ${p}: { calendar: always, firstResponse: PT1H, resolution: PT8H }`),
        '',
      ].join('\n'),
    );
    const service = await ServiceProcess.launch({ LOG_FORMAT: 'json', LOG_LEVEL: 'info', SLA_ENABLED: 'true', SLA_POLICY_FILE: file });
    expect(await service.exited).toBe(1);
    expect(service.output).not.toContain('YAMLWarning');
    const lines = service.output.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 'error',
      context: 'Bootstrap',
      message: `Start-up failed: SLA_POLICY_FILE ${file}: (document): unsupported YAML tag !!js/function at line 2, column 11; the policy takes plain mappings, lists and strings`,
    });
  });
});
