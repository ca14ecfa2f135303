import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ManagedProcess,
  TERMINATING_SIGNALS,
  baseEnv,
  freePortRange,
  freePorts,
  isAlive,
  GiveUp,
  RunDir,
  run,
  signalPid,
  tail,
  tcpAccepts,
  waitFor,
  waitForPidExit,
} from './processes.js';

export interface RabbitNode {
  /** Erlang node name, e.g. tk1a2b3cn1@localhost (unique per run). */
  name: string;
  amqpPort: number;
  distPort: number;
  /** OS pid of the node's Erlang VM (beam.smp); the last one when the node is down. */
  pid: number;
}

export interface RabbitClusterOptions {
  /** Milliseconds a node may take to boot (and each CLI call to finish). */
  bootTimeoutMs?: number;
}

const RABBIT_DIRS = ['/usr/lib/rabbitmq/bin', ...rabbitReleaseSbinDirs()];

function rabbitReleaseSbinDirs(): string[] {
  const lib = '/usr/lib/rabbitmq/lib';
  if (!existsSync(lib)) return [];
  return readdirSync(lib)
    .filter((entry) => entry.startsWith('rabbitmq_server-'))
    .sort()
    .reverse()
    .map((entry) => join(lib, entry, 'sbin'));
}

/** The Debian package's scripts without the /usr/sbin wrapper (which would switch to the rabbitmq user). */
function rabbitScript(name: string): string {
  const found = RABBIT_DIRS.map((dir) => join(dir, name)).find((path) => existsSync(path));
  if (!found) throw new Error(`${name} not found in ${RABBIT_DIRS.join(', ')} (is the rabbitmq-server package installed?)`);
  return found;
}

/**
 * A 3-node RabbitMQ cluster of the machine's RabbitMQ installation, private to one test run: own node names,
 * AMQP and distribution ports, a private epmd, Erlang cookie, mnesia, log and config folders in a temp folder.
 * Nothing of the machine's own RabbitMQ (5672, epmd 4369, /etc/rabbitmq, /var/lib/rabbitmq) is used.
 */
export class RabbitCluster {
  readonly nodes: RabbitNode[] = [];
  /** amqp://guest:guest@127.0.0.1:<port> per node, in node order. */
  amqpUrls: string[] = [];
  /** Milliseconds the last start() took, and its phases. */
  startMs = 0;
  startPhasesMs: Record<string, number> = {};

  private dir = '';
  private runDir?: RunDir;
  private epmdPort = 0;
  private ctlPortMin = 0;
  private epmd?: ManagedProcess;
  private readonly servers: (ManagedProcess | undefined)[] = [];
  private readonly startedPids = new Set<number>();
  private readonly run = randomBytes(3).toString('hex');
  private readonly bootTimeoutMs: number;

  constructor(options: RabbitClusterOptions = {}) {
    this.bootTimeoutMs = options.bootTimeoutMs ?? 90_000;
  }

  /** Resolves when all 3 nodes run and cluster_status of node 1 lists all of them as running. */
  async start(): Promise<void> {
    const began = Date.now();
    let phaseStart = began;
    const phase = (name: string) => {
      this.startPhasesMs[name] = Date.now() - phaseStart;
      phaseStart = Date.now();
    };
    try {
      this.runDir = await RunDir.create('tk-rabbit-');
      this.dir = this.runDir.path;
      const home = join(this.dir, 'home');
      await mkdir(home);
      const cookie = join(home, '.erlang.cookie');
      await writeFile(cookie, randomBytes(20).toString('hex').toUpperCase());
      await chmod(cookie, 0o400);
      // No plugins (a package-wide enabled_plugins with management would open 15672 on every node),
      // and an empty rabbitmq-env.conf instead of /etc/rabbitmq's (which names the shared node).
      await writeFile(join(this.dir, 'enabled_plugins'), '[].\n');
      await writeFile(join(this.dir, 'rabbitmq-env.conf'), '');

      this.epmdPort = (await freePorts(1))[0];
      this.ctlPortMin = await freePortRange(11);
      this.epmd = new ManagedProcess('epmd', ['-port', String(this.epmdPort), '-address', '127.0.0.1'], {
        env: baseEnv({ HOME: home }),
        logFile: join(this.dir, 'epmd.log'),
        runDir: this.runDir,
      });
      this.startedPids.add(this.epmd.pid);
      await waitFor('the private epmd', 10_000, () => tcpAccepts(this.epmdPort));

      for (let i = 0; i < 3; i++) {
        const [amqpPort, distPort] = await freePorts(2);
        this.nodes.push({ name: `tk${this.run}n${i + 1}@localhost`, amqpPort, distPort, pid: 0 });
        await mkdir(join(this.dir, `n${i + 1}`, 'log'), { recursive: true });
        await writeFile(join(this.dir, `n${i + 1}`, 'rabbitmq.conf'), ['log.console = false', 'log.file.level = info', ''].join('\n'));
      }
      this.amqpUrls = this.nodes.map((node) => `amqp://guest:guest@127.0.0.1:${node.amqpPort}`);

      phase('prepare');
      // The three VMs boot in parallel; joining is sequential.
      await Promise.all(this.nodes.map((_, i) => this.boot(i)));
      phase('boot');
      for (const i of [1, 2]) {
        await this.ctl(i, ['stop_app']);
        await this.ctl(i, ['join_cluster', this.nodes[0].name]);
        await this.ctl(i, ['start_app']);
        phase(`join n${i + 1}`);
      }
      const running = await this.runningNodes(0);
      phase('cluster_status');
      const missing = this.nodes.filter((node) => !running.includes(node.name));
      if (missing.length) throw new Error(`Cluster did not form; running nodes: ${running.join(', ')}`);
      this.startMs = Date.now() - began;
    } catch (error) {
      const logs = this.nodes.map((_, i) => `--- node ${i + 1}\n${tail(this.outputLog(i))}\n${tail(this.brokerLog(i))}`).join('\n');
      await this.stop();
      throw new Error(`RabbitMQ cluster did not start: ${(error as Error).message}\n${logs}`, { cause: error });
    }
  }

  /** Running node names as node `via` sees them (cluster_status). */
  async runningNodes(via = this.liveNode()): Promise<string[]> {
    const status = JSON.parse(await this.ctl(via, ['cluster_status', '--formatter', 'json'])) as { running_nodes: string[] };
    return status.running_nodes;
  }

  /**
   * Sends `signal` to node i's Erlang VM. For terminating signals, resolves once the VM and its helpers are
   * gone; SIGSTOP/SIGCONT simply freeze and thaw it.
   */
  async kill(i: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const { pid } = this.nodes[i];
    signalPid(pid, signal);
    if (!TERMINATING_SIGNALS.has(signal)) return;
    if (!(await waitForPidExit(pid, 60_000))) signalPid(pid, 'SIGKILL');
    await this.servers[i]?.stop(5_000);
  }

  /** Starts node i again on its own data; it rejoins the cluster by itself. */
  async restart(i: number): Promise<void> {
    if (this.servers[i]?.running) throw new Error(`Node ${i + 1} still runs`);
    await this.boot(i);
    await this.ctl(i, ['await_startup']);
  }

  /** Index of the node that leads quorum queue `queue`, as the cluster reports it (list_queues leader). */
  async queueLeader(queue: string, vhost = '/'): Promise<number> {
    const rows = JSON.parse(
      await this.ctl(this.liveNode(), ['list_queues', '-p', vhost, 'name', 'type', 'leader', '--formatter', 'json']),
    ) as { name: string; type: string; leader: string }[];
    const row = rows.find((candidate) => candidate.name === queue);
    if (!row) throw new Error(`No queue ${queue} in vhost ${vhost}`);
    if (row.type !== 'quorum') throw new Error(`Queue ${queue} is a ${row.type} queue`);
    return this.indexOf(row.leader);
  }

  /**
   * Index of the node a client connection is on, found by its `connection_name` client property. The node is
   * taken from the server port the client connected to (each node has its own); list_connections answers for
   * the whole cluster, so one live node is asked. Undefined when no such connection exists (yet).
   */
  async connectionNode(connectionName: string): Promise<number | undefined> {
    const rows = JSON.parse(await this.ctl(this.liveNode(), ['list_connections', 'port', 'client_properties', '--formatter', 'json'])) as {
      port: number;
      client_properties: unknown;
    }[];
    const row = rows.find((candidate) => connectionNameOf(candidate.client_properties) === connectionName);
    if (!row) return undefined;
    const index = this.nodes.findIndex((node) => node.amqpPort === row.port);
    if (index < 0) throw new Error(`Connection ${connectionName} is on unknown port ${row.port}`);
    return index;
  }

  /** Every OS pid the harness started (epmd, the start scripts, the Erlang VMs), alive or not. */
  pids(): number[] {
    return [...this.startedPids, ...(this.runDir?.reaperPid ? [this.runDir.reaperPid] : [])];
  }

  isRunning(i: number): boolean {
    return this.nodes[i].pid > 0 && isAlive(this.nodes[i].pid);
  }

  /** Runs rabbitmqctl against node i. */
  async ctl(i: number, args: string[]): Promise<string> {
    return run(rabbitScript('rabbitmqctl'), ['-n', this.nodes[i].name, '-q', ...args], {
      env: this.cliEnv(),
      timeoutMs: this.bootTimeoutMs,
    });
  }

  /** Stops every node (SIGTERM, SIGKILL after `graceMs`) and epmd, then removes the temp folder. */
  async stop(graceMs = 10_000): Promise<void> {
    await Promise.all(this.servers.map((server) => server?.stop(graceMs)));
    // The VMs are in the script's process group, but make sure none outlived it (e.g. after a failed start).
    for (const node of this.nodes) if (node.pid && isAlive(node.pid)) signalPid(node.pid, 'SIGKILL');
    await Promise.all(this.nodes.map((node) => (node.pid ? waitForPidExit(node.pid, 10_000) : true)));
    await this.epmd?.stop(2_000);
    await this.runDir?.remove();
  }

  private liveNode(): number {
    const index = this.nodes.findIndex((_, i) => this.isRunning(i));
    if (index < 0) throw new Error('No RabbitMQ node is running');
    return index;
  }

  private indexOf(nodeName: string): number {
    const index = this.nodes.findIndex((node) => node.name === nodeName);
    if (index < 0) throw new Error(`Unknown node ${nodeName}`);
    return index;
  }

  private outputLog(i: number): string {
    return join(this.dir, `n${i + 1}`, 'output.log');
  }

  private brokerLog(i: number): string {
    return join(this.dir, `n${i + 1}`, 'log', `${this.nodes[i].name}.log`);
  }

  private commonEnv(): Record<string, string> {
    return {
      HOME: join(this.dir, 'home'),
      ERL_EPMD_PORT: String(this.epmdPort),
      ERL_EPMD_ADDRESS: '127.0.0.1',
      ERL_FLAGS: '-kernel inet_dist_use_interface {127,0,0,1}',
      RABBITMQ_CONF_ENV_FILE: join(this.dir, 'rabbitmq-env.conf'),
      RABBITMQ_CTL_DIST_PORT_MIN: String(this.ctlPortMin),
      RABBITMQ_CTL_DIST_PORT_MAX: String(this.ctlPortMin + 10),
    };
  }

  private cliEnv(): NodeJS.ProcessEnv {
    return baseEnv(this.commonEnv());
  }

  /** Starts node i's VM and waits until it accepts AMQP connections. */
  private async boot(i: number): Promise<void> {
    const node = this.nodes[i];
    const nodeDir = join(this.dir, `n${i + 1}`);
    const pidFile = join(nodeDir, 'beam.pid');
    await rm(pidFile, { force: true });
    const env = baseEnv({
      ...this.commonEnv(),
      RABBITMQ_NODENAME: node.name,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(node.amqpPort),
      RABBITMQ_DIST_PORT: String(node.distPort),
      RABBITMQ_MNESIA_BASE: join(nodeDir, 'mnesia'),
      RABBITMQ_MNESIA_DIR: join(nodeDir, 'mnesia', node.name),
      RABBITMQ_LOG_BASE: join(nodeDir, 'log'),
      RABBITMQ_CONFIG_FILE: join(nodeDir, 'rabbitmq.conf'),
      RABBITMQ_ADVANCED_CONFIG_FILE: join(nodeDir, 'advanced.config'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(this.dir, 'enabled_plugins'),
      RABBITMQ_PID_FILE: pidFile,
    });
    // The script stays as parent of the VM and turns SIGTERM into an orderly shutdown.
    const server = new ManagedProcess(rabbitScript('rabbitmq-server'), [], {
      env,
      logFile: this.outputLog(i),
      cwd: nodeDir,
      runDir: this.runDir!,
    });
    this.servers[i] = server;
    this.startedPids.add(server.pid);
    node.pid = await waitFor(`node ${node.name} to write its pid file`, this.bootTimeoutMs, async () => {
      if (!server.running) throw new GiveUp(`node ${node.name} exited`);
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      return /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
    });
    this.startedPids.add(node.pid);
    this.runDir!.register(node.pid);
    await waitFor(`node ${node.name} to accept AMQP on ${node.amqpPort}`, this.bootTimeoutMs, async () => {
      if (!server.running) throw new GiveUp(`node ${node.name} exited`);
      return tcpAccepts(node.amqpPort);
    });
  }
}

/** connection_name from list_connections' JSON client_properties (a list of [key, type, value] triples). */
function connectionNameOf(properties: unknown): string | undefined {
  if (!Array.isArray(properties)) return undefined;
  for (const entry of properties) {
    if (Array.isArray(entry) && entry[0] === 'connection_name') return String(entry[entry.length - 1]);
  }
  return undefined;
}
