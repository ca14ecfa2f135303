// `npm run bench:profile -- [scenario] [seconds]`: runs one benchmark scenario against the built service under
// --cpu-prof and prints where its CPU time went, by package and by function (self time). Finds hot spots
// before a change; the benchmark says whether the change paid off. With a third argument, `npm run bench:profile --
// "mixed" 20 400`, the load is that many requests per second at a constant rate (constant-rate.mjs) instead of
// autocannon's saturation, and the latency percentiles by method are printed: what the tail is made of.
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { removeBrokerObjects } from './broker.mjs';
import { scenarios } from './scenarios.mjs';
import { constantRate } from './constant-rate.mjs';
import { adminConnection, dropDatabases, seedTickets } from './seed.mjs';
import { assertPortFree, startProcess } from './process.mjs';

const [name = 'GET by id', seconds = '10', rate] = process.argv.slice(2);
const SEEDED = 10_000;
const PORT = 18083;
const DB = 'tickets_profile';
const root = fileURLToPath(new URL('..', import.meta.url));
const profileDir = path.join(root, 'bench', '.profile');

const scenario = scenarios(SEEDED).find((s) => s.name.startsWith(name));
if (!scenario)
  throw new Error(
    `no scenario named "${name}"; one of: ${scenarios(SEEDED)
      .map((s) => s.name)
      .join(', ')}`,
  );

await assertPortFree(PORT);
await rm(profileDir, { recursive: true, force: true });
const admin = await adminConnection();
await dropDatabases(admin, [DB]);
const BROKER = {
  RABBITMQ_EXCHANGE: 'ticket.profile.exchange',
  RABBITMQ_QUEUE: 'ticket.profile.queue',
  RABBITMQ_ROUTING_KEY: 'ticket.profile',
};
const env = { DB_DATABASE: DB, ...BROKER };
const service = await startProcess('service', ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, 'dist/main.js'], {
  cwd: root,
  port: PORT,
  env,
});
try {
  await seedTickets(admin, DB, SEEDED);
  if (rate) {
    const [plan] = scenario.requests;
    const next = () => (plan.setupRequest ? plan.setupRequest({}) : plan);
    const result = await constantRate({ url: service.url, rate: Number(rate), seconds: Number(seconds), next });
    console.log(`${scenario.name} at ${rate}/s: p50 ${result.p50} ms, p99 ${result.p99} ms, p99.9 ${result.p999} ms, max ${result.max} ms`);
    for (const [method, m] of Object.entries(result.methods))
      console.log(`  ${method}: p50 ${m.p50} ms, p99 ${m.p99} ms, p99.9 ${m.p999} ms`);
    console.log();
  } else {
    const result = await autocannon({
      url: service.url,
      connections: scenario.connections,
      duration: Number(seconds),
      requests: scenario.requests,
    });
    console.log(`${scenario.name}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, non-2xx ${result.non2xx}\n`);
  }
} finally {
  await service.stop();
  await dropDatabases(admin, [DB]);
  await admin.end();
  await removeBrokerObjects(BROKER);
}

const [file] = await readdir(profileDir);
const profile = JSON.parse(await readFile(path.join(profileDir, file), 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byPackage = new Map();
const byFunction = new Map();
for (const [id, time] of self) {
  const { callFrame } = byId.get(id);
  const pkg = packageOf(callFrame.url, callFrame.functionName);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + time);
  const fn = `${callFrame.functionName || '(anonymous)'} ${pkg}:${callFrame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + time);
}
const top = (map, n) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, time]) => `${((100 * time) / total).toFixed(1).padStart(5)} %  ${key}`);
console.log(`Self time by package:\n${top(byPackage, 25).join('\n')}\n\nSelf time by function:\n${top(byFunction, 40).join('\n')}`);

function packageOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const [scopeOrName, name] = url.slice(modules + 'node_modules/'.length).split('/');
    return scopeOrName.startsWith('@') ? `${scopeOrName}/${name}` : scopeOrName;
  }
  if (url.startsWith('node:')) return url;
  return path.relative(root, fileURLToPath(url));
}
