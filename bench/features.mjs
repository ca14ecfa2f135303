// `npm run build && node bench/features.mjs`: what the opt-in features cost on GET by id (64 connections) when
// switched on. The same dist/main.js runs side by side on one database: everything off (the default), metrics
// exposed (/actuator/prometheus: every request is timed), tracing on (sampling 0.1, spans sent to a local OTLP sink
// this script serves), bearer tokens on (RS256, keys from a local issuer this script serves), and bearer tokens plus
// a rate limit counted in Redis (127.0.0.1:6379; a limit too high to be reached, so every request pays one Redis
// round trip). Rounds alternate between them, so none always runs on the warmer side. Options: --duration=<s>
// (default 6), --rounds=<n> (default 3), --warmup=<s> (default 2). Prints a table and writes
// bench/results-features.json.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { removeBrokerObjects } from './broker.mjs';
import { combine, measure } from './report.mjs';
import { adminConnection, dropDatabases, seedTickets } from './seed.mjs';
import { assertPortFree, startProcess } from './process.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const DURATION_S = arg('duration', 6);
const WARMUP_S = arg('warmup', 2);
const ROUNDS = arg('rounds', 3);
const SEEDED = 10_000;
const DATABASE = 'tickets_bench_features';
const BROKER = {
  RABBITMQ_EXCHANGE: 'ticket.bench-security.exchange',
  RABBITMQ_QUEUE: 'ticket.bench-security.queue',
  RABBITMQ_ROUTING_KEY: 'ticket.bench',
};
const PORTS = [18090, 18091, 18092, 18093, 18094];
const root = fileURLToPath(new URL('..', import.meta.url));

/** A local OpenID provider (discovery document and key set, one RS256 key) that also takes OTLP spans. */
async function startIssuer() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks` }));
    else if (req.url === '/v1/traces') req.resume().on('end', () => res.end('{}'));
    else res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const token = await new SignJWT({ sub: 'bench', scope: 'tickets.read', aud: 'ticket-service' })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuer(url)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  return { url, token, close: () => new Promise((resolve) => server.close(resolve)) };
}

function load(target, seconds, headers) {
  return autocannon({
    url: target.url,
    connections: 64,
    duration: seconds,
    requests: [
      { setupRequest: (req) => ({ ...req, method: 'GET', path: `/api/tickets/${1 + Math.floor(Math.random() * SEEDED)}`, headers }) },
    ],
  });
}

async function main() {
  for (const port of PORTS) await assertPortFree(port);
  const admin = await adminConnection();
  const issuer = await startIssuer();
  const jwt = {
    SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_ISSUERURI: issuer.url,
    SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_AUDIENCES: 'ticket-service',
  };
  const rateLimit = {
    SPRING_DATA_REDIS_URL: 'redis://127.0.0.1:6379',
    RATE_LIMIT_REQUESTS: '1000000000',
    RATE_LIMIT_KEY_PREFIX: `bench:${randomBytes(4).toString('hex')}:`,
  };
  const tracing = { MANAGEMENT_TRACING_ENABLED: 'true', MANAGEMENT_OTLP_TRACING_ENDPOINT: `${issuer.url}/v1/traces` };
  const configurations = [
    { name: 'everything off (default)', env: {}, headers: {} },
    { name: 'metrics exposed', env: { MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health,info,prometheus' }, headers: {} },
    { name: 'tracing on (sampling 0.1)', env: tracing, headers: {}, args: ['--import=./dist/observability/tracing.register.js'] },
    { name: 'bearer tokens', env: jwt, headers: { authorization: `Bearer ${issuer.token}` } },
    { name: 'bearer tokens + rate limit in Redis', env: { ...jwt, ...rateLimit }, headers: { authorization: `Bearer ${issuer.token}` } },
  ];
  const targets = [];
  try {
    await dropDatabases(admin, [DATABASE]);
    for (const [index, configuration] of configurations.entries()) {
      const env = { DB_DATABASE: DATABASE, LOG_LEVEL: 'warn', ...BROKER, ...configuration.env };
      targets.push(
        await startProcess(configuration.name, [...(configuration.args ?? []), 'dist/main.js'], { cwd: root, port: PORTS[index], env }),
      );
      if (index === 0) await seedTickets(admin, DATABASE, SEEDED);
    }
    for (const [index, target] of targets.entries()) await load(target, WARMUP_S, configurations[index].headers);
    const rounds = configurations.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse();
      for (const index of order) {
        rounds[index].push(await measure(targets[index], false, () => load(targets[index], DURATION_S, configurations[index].headers)));
      }
    }
    const results = configurations.map(({ name }, index) => ({ name, ...combine(rounds[index]) }));
    const base = results[0].rps;
    console.log('\nGET by id, 64 connections');
    console.log('| configuration | req/s | vs off | p50 ms | p99 ms | CPU µs/request | non-2xx |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of results)
      console.log(`| ${r.name} | ${r.rps} | ${(r.rps / base).toFixed(2)} | ${r.p50} | ${r.p99} | ${r.cpuUsPerRequest} | ${r.non2xx} |`);
    const machine = `${os.cpus().length} vCPU ${os.cpus()[0]?.model ?? ''}, Node ${process.version}`;
    await writeFile(
      new URL('results-features.json', import.meta.url),
      JSON.stringify({ date: new Date().toISOString(), machine, results }, null, 2),
    );
  } finally {
    await Promise.all(targets.map((target) => target.stop()));
    await issuer.close();
    await dropDatabases(admin, [DATABASE]);
    await admin.end();
    await removeBrokerObjects(BROKER).catch(() => undefined);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
