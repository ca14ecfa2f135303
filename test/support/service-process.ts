import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

interface LaunchOptions {
  cwd?: string;
  /** Options for node before the entry point, e.g. ['--import', 'tracing.register.js']. */
  nodeArgs?: string[];
}

/** The service as a real child process (built by global setup), for signal, crash and multi-replica tests. */
export class ServiceProcess {
  output = '';
  readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout?.on('data', (chunk) => (this.output += chunk));
    child.stderr?.on('data', (chunk) => (this.output += chunk));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
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
    const port = await freePort();
    const main = cwd ? join(cwd, 'dist', 'main.js') : join(process.env.TEST_SERVICE_BUILD!, 'main.js');
    const child = spawn(process.execPath, [...nodeArgs, main], {
      cwd,
      env: { ...process.env, NODE_OPTIONS: '', SERVER_PORT: String(port), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceProcess(child, `http://127.0.0.1:${port}`);
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
    try {
      await fetch(`${this.url}/api/tickets/1`, { signal: AbortSignal.timeout(1_000) });
      return true;
    } catch {
      return false;
    }
  }
}

/** A TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
