import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { listeningPort } from '../support/service-process.js';

const ROOT = new URL('../..', import.meta.url).pathname;

/** What a fresh clone holds that `npm start` needs; node_modules is the project's own, linked. */
const PROJECT_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'docs'];

/**
 * `npm start` / `npm run <script>` as a process manager, an IDE or `timeout` runs it: npm is the process they
 * started, in a process group of its own, and the signal goes to npm's pid alone.
 */
class NpmProcess {
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (chunk) => (this.output += chunk));
    child.stderr!.on('data', (chunk) => (this.output += chunk));
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  static async run(cwd: string, args: string[]): Promise<NpmProcess> {
    // A terminal's environment: the npm_* variables of the test run's own npm would not be there.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
    const child = spawn('npm', args, {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...env,
        // npm and the service run on the Node.js the tests run on.
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
        NODE_OPTIONS: '',
        SERVER_PORT: '0',
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
      },
    });
    return new NpmProcess(child);
  }

  /** The port the service listens on, from its start-up line. */
  get port(): number {
    const port = listeningPort(this.output);
    if (port === undefined) throw new Error(`The service has not said which port it listens on:\n${this.output}`);
    return port;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Waits until the service answers HTTP; fails early when npm has ended. */
  async untilServing(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`npm ended before serving:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`Not serving within ${timeoutMs} ms:\n${this.output}`);
      const port = listeningPort(this.output);
      try {
        if (port === undefined) throw new Error('not listening yet');
        await fetch(`http://127.0.0.1:${port}/actuator/health`, { signal: AbortSignal.timeout(1_000) });
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** npm's exit; gives up (and fails the test) rather than hang when a signal never ends it. */
  exitWithin(giveUpMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`npm still running ${giveUpMs} ms after the signal:\n${this.output}`)), giveUpMs);
    });
    return Promise.race([this.exited, giveUp]).finally(() => clearTimeout(timer));
  }

  /** Ends whatever is left of the process group (only after a failed test). */
  killGroup(): void {
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // nothing left
    }
  }
}

/** The pids and command lines of the processes in process group `pgid`, from /proc. */
async function groupMembers(pgid: number): Promise<Array<{ pid: number; command: string }>> {
  const members = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so fields count from its last ')'.
      const [, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(group) !== pgid) continue;
      const command = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).split('\0').join(' ').trim();
      members.push({ pid: Number(entry), command });
    } catch {
      // the process ended while being read
    }
  }
  return members;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether anything accepts a connection on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm start and npm run start:prod', () => {
  let project: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'ticket-service-npm-start-'));
    for (const file of PROJECT_FILES) await cp(join(ROOT, file), join(project, file), { recursive: true });
    await symlink(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
  });

  afterAll(async () => {
    await rm(project, { recursive: true, force: true });
  });

  /**
   * Starts `npm <args>`, waits until the service serves, sends `signal` to npm's pid alone and checks that npm
   * exits 0 after a graceful shutdown, the port is closed and no process of its group is left.
   */
  async function startThenStop(args: string[], signal: NodeJS.Signals, startTimeoutMs: number): Promise<NpmProcess> {
    const npm = await NpmProcess.run(project, args);
    try {
      await npm.untilServing(startTimeoutMs);
      const members = await groupMembers(npm.pid);
      expect(members.map(({ pid }) => pid)).toContain(npm.pid);
      // The service itself is a member of npm's group (a child or grandchild), and it is serving.
      expect(members.some(({ command }) => /\bnode\b.*dist\/main\.js/.test(command))).toBe(true);

      process.kill(npm.pid, signal);
      const exit = await npm.exitWithin(30_000);

      expect(npm.output).toContain(`Shutting down on ${signal}`);
      expect(npm.output).toMatch(/HTTP server closed/);
      expect(exit).toEqual({ code: 0, signal: null });
      // npm has waited for the service: by the time npm is gone, so is every process it started.
      expect(members.filter(({ pid }) => isAlive(pid))).toEqual([]);
      expect(await groupMembers(npm.pid)).toEqual([]);
      expect(await accepts(npm.port)).toBe(false);
      return npm;
    } finally {
      npm.killGroup();
    }
  }

  it('npm start builds, serves, and on SIGTERM to npm shuts the service down gracefully, leaving no process', async () => {
    const npm = await startThenStop(['start'], 'SIGTERM', 120_000);
    expect(npm.output).toContain('tsc -p tsconfig.build.json');
  }, 180_000);

  it('npm run start:prod on SIGTERM to npm shuts the service down gracefully, leaving no process', async () => {
    await startThenStop(['run', 'start:prod'], 'SIGTERM', 60_000);
  }, 120_000);

  it('npm run start:prod on SIGINT to npm does the same', async () => {
    await startThenStop(['run', 'start:prod'], 'SIGINT', 60_000);
  }, 120_000);

  it('npm run start:prod stops gracefully on Ctrl-C, which signals the whole process group', async () => {
    const npm = await NpmProcess.run(project, ['run', 'start:prod']);
    try {
      await npm.untilServing(60_000);
      process.kill(-npm.pid, 'SIGINT');
      expect(await npm.exitWithin(30_000)).toEqual({ code: 0, signal: null });
      // The service got SIGINT twice (from the terminal and from npm) and shut down once.
      expect(npm.output.match(/Shutting down on SIGINT/g)).toHaveLength(1);
      expect(await groupMembers(npm.pid)).toEqual([]);
      expect(await accepts(npm.port)).toBe(false);
    } finally {
      npm.killGroup();
    }
  }, 120_000);
});
