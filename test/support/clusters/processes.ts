import { setTimeout as delay } from 'node:timers/promises';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Process plumbing shared by the cluster harnesses: child processes in their own process group that are
 * stopped by pid (SIGTERM, then SIGKILL after a grace period), ports checked free, and a run folder with a
 * reaper that kills whatever is left and removes the folder if the test process dies without stopping its
 * cluster (process.on('exit') listeners do not fire inside a Jest test environment, and nothing runs on SIGKILL).
 */

/** True while the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name, which is in parentheses and may itself contain spaces.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => delay(ms);

/** Thrown by a waitFor check to stop waiting at once (e.g. the process it waits for has exited). */
export class GiveUp extends Error {}

/**
 * Polls `check` until it returns a value other than undefined/false, or throws after `timeoutMs`. Errors the
 * check throws count as "not yet", except GiveUp.
 */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await sleep(intervalMs);
  }
}

export async function waitForPidExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Sends a signal to a pid; false when it no longer exists. */
export function signalPid(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

export const TERMINATING_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGQUIT', 'SIGABRT']);

/** A child started in its own process group, output appended to a log file. */
export class ManagedProcess {
  readonly pid: number;
  readonly exited: Promise<void>;
  private readonly child: ChildProcess;

  constructor(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string; logFile: string; runDir: RunDir }) {
    const log = openSync(options.logFile, 'a');
    try {
      this.child = spawn(command, args, { env: options.env, cwd: options.cwd, detached: true, stdio: ['ignore', log, log] });
    } finally {
      closeSync(log);
    }
    if (this.child.pid === undefined) throw new Error(`Could not start ${command}`);
    this.pid = this.child.pid;
    options.runDir.register(this.pid);
    this.exited = new Promise((resolve) => {
      const done = () => {
        // The leader is gone; nothing of its group may outlive it (helpers such as erl_child_setup or rsync).
        this.killGroupSync();
        resolve();
      };
      if (this.child.exitCode !== null || this.child.signalCode !== null) done();
      else this.child.once('exit', done);
      this.child.once('error', done);
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && isAlive(this.pid);
  }

  signal(signal: NodeJS.Signals): void {
    signalPid(this.pid, signal);
  }

  killGroupSync(): void {
    signalPid(-this.pid, 'SIGKILL');
  }

  /** SIGTERM to the leader, SIGKILL to the whole group after `graceMs`; resolves once the leader has exited. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.running) this.signal('SIGTERM');
    const timer = setTimeout(() => this.killGroupSync(), graceMs);
    await this.exited;
    clearTimeout(timer);
    this.killGroupSync();
  }
}

const REAPER = `
parent=$1; dir=$2
while kill -0 "$parent" 2>/dev/null && [ -d "$dir" ]; do sleep 1; done
[ -d "$dir" ] || exit 0
for pid in $(cat "$dir/.pids" 2>/dev/null); do kill -9 "-$pid" 2>/dev/null; kill -9 "$pid" 2>/dev/null; done
sleep 1
rm -rf "$dir"
`;

/**
 * A run-private temp folder plus its reaper: a small shell loop that lives as long as the test process and the
 * folder. If the test process goes away first, it SIGKILLs every registered pid and process group and removes
 * the folder; remove() (the normal way) deletes the folder, and the reaper then exits by itself.
 */
export class RunDir {
  private readonly reaper: ChildProcess;
  private readonly reaperExited: Promise<void>;

  private constructor(readonly path: string) {
    this.reaper = spawn('/bin/sh', ['-c', REAPER, 'reaper', String(process.pid), path], { detached: true, stdio: 'ignore' });
    this.reaperExited = new Promise((resolve) => this.reaper.once('exit', () => resolve()));
    this.reaper.unref();
  }

  static async create(prefix: string): Promise<RunDir> {
    const path = await mkdtemp(join(tmpdir(), prefix));
    await chmod(path, 0o700);
    return new RunDir(path);
  }

  get reaperPid(): number | undefined {
    return this.reaper.pid;
  }

  /** Records a pid (and process group) for the reaper. */
  register(pid: number): void {
    appendFileSync(join(this.path, '.pids'), `${pid}\n`);
  }

  /** Removes the folder and waits (up to 5 s) for the reaper to notice and exit. */
  async remove(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
    const timer = setTimeout(() => this.reaper.pid && signalPid(this.reaper.pid, 'SIGKILL'), 5_000);
    await this.reaperExited;
    clearTimeout(timer);
  }
}

/**
 * Ports for cluster nodes: taken at random from 20000–32767, below Linux's ephemeral range (so outgoing
 * connections do not grab them later) and away from the standard ports of the shared servers; each one is
 * checked free on all interfaces, and never handed out twice in this process.
 */
const handedOut = new Set<number>();
const PORT_MIN = 20_000;
const PORT_MAX = 32_767;

async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** `count` consecutive free ports; returns the first. */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const first = PORT_MIN + Math.floor(Math.random() * (PORT_MAX - PORT_MIN - count));
    let ok = true;
    for (let port = first; port < first + count && ok; port++) ok = !handedOut.has(port) && (await portFree(port));
    if (!ok) continue;
    for (let port = first; port < first + count; port++) handedOut.add(port);
    return first;
  }
  throw new Error(`No ${count} consecutive free ports found in ${PORT_MIN}-${PORT_MAX}`);
}

export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await freePortRange(1));
  return ports;
}

export function tcpAccepts(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Runs a command to completion; rejects with its output when it fails. */
export function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { env: options.env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

/** Last lines of a log file, for failure messages. */
export function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return `(no ${file})`;
  }
}

/** Resident memory of a pid in MiB (VmRSS), undefined when it is gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** An environment with only what the servers need, so variables meant for the service (RABBITMQ_URL, DB_*) do not leak into them. */
export function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    // The SST scripts of MariaDB call rsync, ss, pgrep... from /usr/sbin and /sbin too.
    PATH: `${process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}:/usr/sbin:/sbin`,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    ...extra,
  };
}
