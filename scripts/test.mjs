// npm test: the unit and e2e projects in parallel workers, then the serial project (jest.config.js, SERIAL) one
// file at a time, both on one run id and one build of the service (test/support/global-setup.ts).
// With arguments (`npm test -- test/tickets/etag`), jest runs the files they select one at a time, as a single run.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() };
const jest = (args, extraEnv = {}) =>
  spawnSync(process.execPath, ['node_modules/jest/bin/jest.js', ...args], { stdio: 'inherit', env: { ...env, ...extraEnv } }).status ?? 1;

const args = process.argv.slice(2);
if (args.length > 0) process.exit(jest(['--runInBand', ...args]));

env.TEST_RUN_ID = randomBytes(4).toString('hex');
const parallel = jest(['--selectProjects', 'unit', 'e2e'], { TEST_KEEP_BUILD: '1' });
const serial = jest(['--selectProjects', 'serial', '--runInBand']);
process.exit(parallel || serial);
