import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../../src/config/app-config.js';
import { asyncApiFor } from '../../src/docs/asyncapi.setup.js';
import { ServiceProcess } from '../support/service-process.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped, grouped by stage. */
function dockerfileStages(text: string): Instruction[][] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim());
  const instructions = lines
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
  const stages: Instruction[][] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** The final stage's copies from the build context (not from another stage): [source, target]. */
function contextCopies(stage: Instruction[]): Array<[string, string]> {
  return stage.filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from')).map((i) => i.args.split(/\s+/) as [string, string]);
}

/** Whether .dockerignore keeps `path` out of the build context: the last pattern that matches it decides. */
function dockerIgnored(path: string): boolean {
  let ignored = false;
  for (const line of read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const pattern = negated ? line.slice(1) : line;
    const regex = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`);
    if (regex.test(path)) ignored = !negated;
  }
  return ignored;
}

/** Compose's `${VAR:-default}` with nothing set: the defaults a plain `docker compose up` uses. */
const withDefaults = (value: unknown) => String(value).replace(/\$\{\w+:-([^}]*)\}/g, '$1');

/** The documented settings: every variable named in .env.example. */
const documented = new Set([...read('.env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map(([, name]) => name));

describe('Configuration documentation', () => {
  it('names every variable the configuration reads in .env.example and in docs/configuration.md', () => {
    const sources = readdirSync(join(ROOT, 'src/config')).filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'));
    const names = sources.flatMap((file) =>
      [...read(`src/config/${file}`).matchAll(/read\.\w+\('([A-Z][A-Z0-9_]+)'/g)].map(([, name]) => name),
    );
    expect(names).toContain('IDEMPOTENCY_TTL_HOURS');
    const table = read('docs/configuration.md');
    expect(names.filter((name) => !documented.has(name) && !['PORT', 'RABBITMQ_ADDRESSES'].includes(name))).toEqual([]);
    expect(names.filter((name) => !table.includes(`\`${name}\``))).toEqual([]);
  });
});

describe('Dockerfile', () => {
  const stages = dockerfileStages(read('Dockerfile'));
  const final = stages.at(-1)!;
  const args = (stage: Instruction[], keyword: string) => stage.filter((i) => i.keyword === keyword).map((i) => i.args);
  const healthcheckCommand = (): string[] => JSON.parse(args(final, 'HEALTHCHECK')[0].replace(/^.*?CMD\s+/, ''));

  it('builds in one stage (npm ci, then the build) and runs on a slim Node >= 20.19 image', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages.find((stage) => args(stage, 'RUN').some((command) => command.includes('npm run build')))!;
    const runs = args(build, 'RUN');
    expect(runs.findIndex((command) => /^npm ci\b/.test(command))).toBeLessThan(
      runs.findIndex((command) => command.includes('npm run build')),
    );
    expect(read('Dockerfile')).toMatch(/^ARG NODE_IMAGE=node:(2[2-9]|[3-9]\d)-slim$/m);
    expect(args(final, 'FROM')).toEqual(['${NODE_IMAGE}']);
  });

  it('runs with production dependencies only (npm ci --omit=dev), the build output and package.json', () => {
    const dependencies = stages.find((stage) => args(stage, 'RUN').some((command) => command.includes('npm ci --omit=dev')));
    expect(dependencies).toBeDefined();
    const copies = args(final, 'COPY');
    expect(copies).toEqual(
      expect.arrayContaining(['package.json ./', expect.stringMatching(/node_modules/), expect.stringMatching(/\/app\/dist/)]),
    );
    expect(copies.some((copy) => /\bsrc\b/.test(copy))).toBe(false);
  });

  it('runs as a non-root user, exposes 8080 and starts node directly, so SIGTERM reaches it', () => {
    expect(args(final, 'USER')).toEqual(['node']);
    expect(args(final, 'EXPOSE')).toEqual(['8080']);
    expect(JSON.parse(args(final, 'CMD')[0])).toEqual(['node', 'dist/main.js']);
    expect(args(final, 'ENTRYPOINT')).toEqual([]);
  });

  it('has a HEALTHCHECK on /actuator/health/liveness that passes on 200 and fails on 503 or no answer', async () => {
    const command = healthcheckCommand();
    expect(command[0]).toBe('node');
    expect(command.join(' ')).toContain('/actuator/health/liveness');

    let status = 200;
    const server: Server = createServer((req, res) => {
      res.statusCode = req.url === '/actuator/health/liveness' ? status : 404;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = String((server.address() as AddressInfo).port);
    const probe = () =>
      run(process.execPath, command.slice(1), { env: { ...process.env, NODE_OPTIONS: '', SERVER_PORT: port } }).then(
        () => 0,
        (error) => error.code,
      );
    try {
      expect(await probe()).toBe(0);
      status = 503;
      expect(await probe()).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await probe()).toBe(1);
  });

  it('serves the event contract: docs/asyncapi.yaml is copied into the image and is in the build context', () => {
    const copies = contextCopies(final);
    expect(copies).toContainEqual(['docs/asyncapi.yaml', './docs/asyncapi.yaml']);
    expect(copies.map(([source]) => source).filter(dockerIgnored)).toEqual([]);
    expect(['.env', 'node_modules/x', 'docs/other.md', 'test/x.ts'].filter(dockerIgnored)).toHaveLength(4);
  });

  it('ships the default SLA policy where SLA_POLICY_FILE looks for it (config/ beside dist/)', () => {
    const copies = contextCopies(final);
    expect(copies).toContainEqual(['config/sla-policy.yaml', './config/sla-policy.yaml']);
    expect(dockerIgnored('config/sla-policy.yaml')).toBe(false);
  });

  it('keeps secrets, dependencies and build output out of the build context (.dockerignore)', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'dist', '.env', '.env.*']));
  });
});

describe('docker-compose.yml', () => {
  const compose = parseYaml(read('docker-compose.yml'));
  const { mariadb, rabbitmq, app } = compose.services;

  it('runs MariaDB 10.11 (what CI tests) with a volume and RabbitMQ 3 with the management plugin, each with a healthcheck', () => {
    expect(compose.services.mysql).toBeUndefined();
    expect(mariadb.image).toMatch(/^mariadb:10\.11(\.|$)/);
    expect(mariadb.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/^mariadb-data:\/var\/lib\/mysql$/)]));
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['mariadb-data', 'rabbitmq-data']));
    expect(rabbitmq.image).toMatch(/^rabbitmq:3[.-].*management/);
    expect(rabbitmq.ports).toContain('15672:15672');
    for (const service of [mariadb, rabbitmq]) expect(service.healthcheck.test.length).toBeGreaterThan(1);
  });

  it("checks MariaDB's health with the image's own script: over TCP (not the init-time server) and InnoDB started", () => {
    // healthcheck.sh ships in the mariadb image and logs in as the healthcheck user the image creates (no password on
    // a command line); --connect passes only over TCP, which the init-time server does not listen on.
    expect(mariadb.healthcheck.test).toEqual(['CMD', 'healthcheck.sh', '--connect', '--innodb_initialized']);
    expect(mariadb.healthcheck.start_period).toBeDefined();
  });

  it('builds the app from this folder and starts it once both are healthy', () => {
    expect(app.build).toBe('.');
    expect(app.ports).toContain('8080:8080');
    expect(app.depends_on).toEqual({ mariadb: { condition: 'service_healthy' }, rabbitmq: { condition: 'service_healthy' } });
  });

  it('configures the app only through its documented environment variables, which it accepts', () => {
    const env = Object.fromEntries(Object.entries<unknown>(app.environment).map(([name, value]) => [name, withDefaults(value)]));
    expect(Object.keys(env).filter((name) => !documented.has(name))).toEqual([]);
    const config = parseConfig(env);
    expect(config.db).toMatchObject({ host: 'mariadb', port: 3306, username: 'tickets', database: 'tickets' });
    expect(config.rabbitmq.urls).toEqual(['amqp://tickets:tickets@rabbitmq:5672']);
    expect(config.management.probesEnabled).toBe(true);
    expect(config.log.format).toBe('json');
  });

  it('gives the app the credentials the database and broker containers are created with', () => {
    const value = (service: { environment: Record<string, unknown> }, name: string) => withDefaults(service.environment[name]);
    expect(value(app, 'DB_USERNAME')).toBe(value(mariadb, 'MARIADB_USER'));
    expect(value(app, 'DB_PASSWORD')).toBe(value(mariadb, 'MARIADB_PASSWORD'));
    expect(value(app, 'DB_DATABASE')).toBe(value(mariadb, 'MARIADB_DATABASE'));
    const url = new URL(value(app, 'RABBITMQ_URL'));
    expect([url.username, url.password]).toEqual([value(rabbitmq, 'RABBITMQ_DEFAULT_USER'), value(rabbitmq, 'RABBITMQ_DEFAULT_PASS')]);
  });
});

describe("the image's steps, run here", () => {
  let folder: string;

  beforeAll(async () => {
    // The Dockerfile's own install command, into an empty folder holding package*.json, then the build output.
    // The folder is outside the project, so nothing can be resolved from the project's own node_modules.
    const install = dockerfileStages(read('Dockerfile'))
      .flat()
      .map(({ args }) => args.split('&&')[0].trim())
      .find((command) => command.startsWith('npm ci --omit=dev'))!;
    folder = await mkdtemp(join(tmpdir(), 'ticket-service-image-'));
    for (const file of ['package.json', 'package-lock.json']) await cp(join(ROOT, file), join(folder, file));
    await run('npm', [...install.split(/\s+/).slice(1), '--prefer-offline'], { cwd: folder, env: { ...process.env, NODE_OPTIONS: '' } });
    await cp(join(ROOT, process.env.TEST_SERVICE_BUILD!), join(folder, 'dist'), { recursive: true });
    // And what the final stage copies from the build context, as it copies it.
    for (const [source, target] of contextCopies(dockerfileStages(read('Dockerfile')).at(-1)!)) {
      await cp(join(ROOT, source), join(folder, target.endsWith('/') ? join(target, basename(source)) : target), { recursive: true });
    }
  }, 180_000);

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('installs nothing the lockfile marks as needed for development only', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
    const devOnly = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && (entry.dev || entry.devOptional));
    expect(devOnly.map(([path]) => path)).toEqual(expect.arrayContaining(['node_modules/@nestjs/cli', 'node_modules/pino-pretty']));
    expect(devOnly.filter(([path]) => existsSync(join(folder, path))).map(([path]) => path)).toEqual([]);
    expect(existsSync(join(folder, 'node_modules', '@nestjs', 'core'))).toBe(true);
  });

  it("serves the API, its docs and the HEALTHCHECK's liveness with the image's ENV, logs JSON lines, and ends on SIGTERM", async () => {
    const final = dockerfileStages(read('Dockerfile')).at(-1)!;
    const imageEnv = Object.fromEntries(
      final.filter((i) => i.keyword === 'ENV').flatMap((i) => i.args.split(/\s+/).map((pair) => pair.split('=') as [string, string])),
    );
    expect(imageEnv).toMatchObject({ NODE_ENV: 'production', LOG_FORMAT: 'json', MANAGEMENT_HEALTH_PROBES_ENABLED: 'true' });
    delete imageEnv.SERVER_PORT; // a free port instead of 8080
    const service = await ServiceProcess.start({ ...imageEnv, LOG_LEVEL: 'info' }, 30_000, { cwd: folder });
    try {
      expect((await fetch(`${service.url}/api/tickets`)).status).toBe(200);
      expect((await fetch(`${service.url}/v3/api-docs`)).status).toBe(200);
      expect((await fetch(`${service.url}/swagger-ui/swagger-ui-bundle.js`)).status).toBe(200);
      const { exchange, exchangeType, queue, routingKey } = parseConfig(process.env).rabbitmq;
      const asyncApi = asyncApiFor(read('docs/asyncapi.yaml'), { exchange, exchangeType, queue, routingKey }).yaml;
      expect(await (await fetch(`${service.url}/asyncapi.yaml`)).text()).toBe(asyncApi);
      expect((await fetch(`${service.url}/asyncapi.json`)).status).toBe(200);
      const healthcheck: string[] = JSON.parse(final.find((i) => i.keyword === 'HEALTHCHECK')!.args.replace(/^.*?CMD\s+/, ''));
      const port = new URL(service.url).port;
      await run(process.execPath, healthcheck.slice(1), { env: { ...process.env, NODE_OPTIONS: '', SERVER_PORT: port } });
    } finally {
      service.kill('SIGTERM');
    }
    // The graceful shutdown drains and exits 0: the signal reached node and its handler.
    expect(await service.exited).toBe(0);
    for (const line of service.output.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe('the Node.js version', () => {
  /** package.json's engines range, a caret range (`^22.12.0`): the same major, at least that version. */
  const engines = JSON.parse(read('package.json')).engines.node as string;
  const [, major, minor, patch] = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(engines)!.map(Number);
  const satisfies = (version: string) => {
    const [ma, mi, pa] = version.replace(/^v/, '').split('.').map(Number);
    return ma === major && (mi > minor || (mi === minor && pa >= patch));
  };

  it('the tests run on a version package.json declares (CI sources scripts/use-node.sh first)', () => {
    expect([engines, satisfies(process.version)]).toEqual([engines, true]);
  });

  it("scripts/use-node.sh installs a declared version, and the Docker image's Node has the declared major", () => {
    const pinned = /^USE_NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(read('scripts/use-node.sh'))![1];
    expect([pinned, satisfies(pinned)]).toEqual([pinned, true]);
    expect(read('Dockerfile')).toMatch(new RegExp(`^ARG NODE_IMAGE=node:${major}-slim$`, 'm'));
    expect(read('.ci/run')).toMatch(/^source scripts\/use-node\.sh$/m);
  });

  it('the README states the same requirement and the pinned version', () => {
    const readme = read('README.md');
    expect(readme).toContain(`Node.js ${major}.${minor} or newer within ${major}`);
    expect(readme).toContain(`\`engines\` \`${engines}\``);
    expect(readme.replace(/\s+/g, ' ')).toContain(
      `or on ${/^USE_NODE_VERSION=(.+)$/m.exec(read('scripts/use-node.sh'))![1]} from \`scripts/use-node.sh\``,
    );
  });
});
