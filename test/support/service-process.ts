import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

interface LaunchOptions {
  cwd?: string;
  /** Options for node before the entry point, e.g. ['--import', 'tracing.register.js']. */
  nodeArgs?: string[];
}

/**
 * The port a service listens on, from its start-up line (bootstrap.ts: "Ticket service listening on port <n>: ...",
 * JSON or pretty). Services start with SERVER_PORT=0, so the system picks a free port and nothing can take it first.
 */
export function listeningPort(output: string): number | undefined {
  const match = /Ticket service listening on port (\d+)/.exec(output);
  return match ? Number(match[1]) : undefined;
}

/** The service as a real child process (built by global setup), for signal, crash and multi-replica tests. */
export class ServiceProcess {
  output = '';
  readonly exited: Promise<number | null>;
  private port: number | undefined;

  private constructor(private readonly child: ChildProcess) {
    const collect = (chunk: Buffer) => {
      this.output += chunk;
      this.port ??= listeningPort(this.output);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Its process id, as its workers name themselves in the leases they hold (src/database/worker-owner.ts). */
  get pid(): number {
    return this.child.pid!;
  }

  /** Where the service answers; known once it has logged its start-up line (at LOG_LEVEL info or lower). */
  get url(): string {
    if (this.port === undefined) throw new Error(`The service has not said which port it listens on:\n${this.output}`);
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Starts the service with the run's environment plus `env`, and waits until it answers HTTP. By default the
   * run's build; `cwd` runs `dist/main.js` of another installation (as the Docker image does).
   */
  static async start(env: Record<string, string> = {}, timeoutMs = 30_000, { cwd, nodeArgs }: LaunchOptions = {}): Promise<ServiceProcess> {
    const service = await ServiceProcess.launch(env, { cwd, nodeArgs });
    const { child } = service;
    const deadline = Date.now() + timeoutMs;
    while (!(await service.answers())) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`Service did not start:\n${service.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return service;
  }

  /** Starts the process without waiting for it to serve, e.g. to watch a start-up that cannot finish. */
  static async launch(env: Record<string, string> = {}, { cwd, nodeArgs = [] }: LaunchOptions = {}): Promise<ServiceProcess> {
    const main = cwd ? join(cwd, 'dist', 'main.js') : join(process.env.TEST_SERVICE_BUILD!, 'main.js');
    const child = spawn(process.execPath, [...nodeArgs, main], {
      cwd,
      // At info its start-up line says the port (a LOG_LEVEL=error in the shell would hide it; the output is only kept).
      env: { ...process.env, NODE_OPTIONS: '', SERVER_PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceProcess(child);
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Stops the process if it still runs (SIGKILL after a grace period). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }

  private async answers(): Promise<boolean> {
    if (this.port === undefined) return false;
    try {
      await fetch(`${this.url}/api/tickets/1`, { signal: AbortSignal.timeout(1_000) });
      return true;
    } catch {
      return false;
    }
  }
}
