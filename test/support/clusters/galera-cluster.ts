import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Connection, type ConnectionOptions, createConnection } from 'mysql2/promise';
import {
  ManagedProcess,
  TERMINATING_SIGNALS,
  baseEnv,
  freePorts,
  isAlive,
  GiveUp,
  RunDir,
  run,
  signalPid,
  tail,
  waitFor,
  waitForPidExit,
} from './processes.js';

export interface GaleraNode {
  /** SQL port on 127.0.0.1 (user root, empty password). */
  port: number;
  /** OS pid of the node's mariadbd; the last one when the node is down. */
  pid: number;
  /** Group communication, incremental and snapshot state transfer ports. */
  gcommPort: number;
  istPort: number;
  sstPort: number;
}

export interface GaleraClusterOptions {
  /** Milliseconds a node may take to start and sync (a joiner includes its state transfer). */
  bootTimeoutMs?: number;
  /** Extra mariadbd options for every node, e.g. ['--wsrep-debug=1']. */
  extraArgs?: string[];
}

const MARIADBD = '/usr/sbin/mariadbd';
const PROVIDER = '/usr/lib/galera/libgalera_smm.so';

/**
 * Group-communication timers shortened from the defaults (suspect 5 s, inactive 15 s) so that a killed node
 * leaves the view within a few seconds, as failover tests need; still well above scheduling hiccups on a
 * loaded 2-core machine.
 */
const GCOMM_TIMERS =
  'evs.keepalive_period=PT0.5S;evs.inactive_check_period=PT0.5S;evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S;evs.install_timeout=PT6S';

/**
 * A 3-node MariaDB Galera cluster of the machine's mariadb-server and galera-4 packages, private to one test
 * run: own data folders, ports, sockets and pid files in a temp folder, no option files read (--no-defaults).
 * Nothing of the machine's own MariaDB (3306, /var/lib/mysql, /etc/mysql) is used.
 */
export class GaleraCluster {
  readonly nodes: GaleraNode[] = [];
  /** Milliseconds the last start() took, and its phases. */
  startMs = 0;
  startPhasesMs: Record<string, number> = {};

  private dir = '';
  private runDir?: RunDir;
  private readonly servers: (ManagedProcess | undefined)[] = [];
  private readonly startedPids = new Set<number>();
  private readonly clusterName = `tk-${randomBytes(3).toString('hex')}`;
  private readonly bootTimeoutMs: number;
  private readonly extraArgs: string[];
  /** As root, mariadbd runs with --user=root, but the rsync daemon of a joiner's SST drops to nobody. */
  private readonly asRoot = process.getuid?.() === 0;

  constructor(options: GaleraClusterOptions = {}) {
    this.bootTimeoutMs = options.bootTimeoutMs ?? 120_000;
    this.extraArgs = options.extraArgs ?? [];
  }

  /** Node 1 bootstraps the cluster, nodes 2 and 3 join one after the other (rsync SST from node 1). */
  async start(): Promise<void> {
    const began = Date.now();
    let phaseStart = began;
    const phase = (name: string) => {
      this.startPhasesMs[name] = Date.now() - phaseStart;
      phaseStart = Date.now();
    };
    try {
      this.runDir = await RunDir.create('tk-galera-');
      this.dir = this.runDir.path;
      // The joiner's rsync daemon (running as nobody when we are root) has to reach the data folders.
      await chmod(this.dir, 0o755);
      for (let i = 0; i < 3; i++) {
        const [port, gcommPort, istPort, sstPort] = await freePorts(4);
        this.nodes.push({ port, pid: 0, gcommPort, istPort, sstPort });
        await mkdir(this.dataDir(i), { recursive: true });
      }
      await run('mariadb-install-db', [
        '--no-defaults',
        `--datadir=${this.dataDir(0)}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--innodb-log-file-size=8M',
        ...(this.asRoot ? ['--user=root'] : []),
      ]);
      phase('install-db');
      await this.boot(0, ['--wsrep-new-cluster']);
      phase('bootstrap n1');
      await this.boot(1);
      phase('join n2');
      await this.boot(2);
      phase('join n3');
      for (let i = 0; i < 3; i++) {
        const size = await this.status(i, 'wsrep_cluster_size');
        if (size !== '3') throw new Error(`Node ${i + 1} sees a cluster of ${size}`);
      }
      this.startMs = Date.now() - began;
    } catch (error) {
      const logs = this.nodes.map((_, i) => `--- node ${i + 1}\n${tail(this.errorLog(i))}`).join('\n');
      await this.stop();
      throw new Error(`Galera cluster did not start: ${(error as Error).message}\n${logs}`, { cause: error });
    }
  }

  /** Connection options for node i (root over TCP, no database selected unless given). */
  connectionOptions(i: number, database?: string): ConnectionOptions {
    return { host: '127.0.0.1', port: this.nodes[i].port, user: 'root', password: '', database };
  }

  connect(i: number, database?: string): Promise<Connection> {
    return createConnection(this.connectionOptions(i, database));
  }

  /** A global status variable of node i, e.g. wsrep_cluster_size. */
  async status(i: number, name: string): Promise<string | undefined> {
    const connection = await this.connect(i);
    try {
      const [rows] = await connection.query('SHOW GLOBAL STATUS LIKE ?', [name]);
      return (rows as { Value: string }[])[0]?.Value;
    } finally {
      await connection.end();
    }
  }

  /**
   * Sends `signal` to node i's mariadbd. For terminating signals, resolves once it (and any state-transfer
   * helper of it) is gone; SIGSTOP/SIGCONT simply freeze and thaw it.
   */
  async kill(i: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const { pid } = this.nodes[i];
    signalPid(pid, signal);
    if (!TERMINATING_SIGNALS.has(signal)) return;
    if (!(await waitForPidExit(pid, 60_000))) signalPid(pid, 'SIGKILL');
    await this.servers[i]?.stop(5_000);
  }

  /** Starts node i again on its own data folder; it joins the running nodes (IST or SST). */
  async restart(i: number): Promise<void> {
    if (this.servers[i]?.running) throw new Error(`Node ${i + 1} still runs`);
    if (!this.nodes.some((_, other) => other !== i && this.isRunning(other))) throw new Error('restart needs another running node to join');
    await this.boot(i);
  }

  isRunning(i: number): boolean {
    return this.nodes[i].pid > 0 && isAlive(this.nodes[i].pid);
  }

  /** Every OS pid the harness started, alive or not. */
  pids(): number[] {
    return [...this.startedPids, ...(this.runDir?.reaperPid ? [this.runDir.reaperPid] : [])];
  }

  /** Stops every node (SIGTERM, SIGKILL after `graceMs`), then removes the temp folder. */
  async stop(graceMs = 10_000): Promise<void> {
    await Promise.all(this.servers.map((server) => server?.stop(graceMs)));
    for (const node of this.nodes) if (node.pid && isAlive(node.pid)) signalPid(node.pid, 'SIGKILL');
    await Promise.all(this.nodes.map((node) => (node.pid ? waitForPidExit(node.pid, 10_000) : true)));
    await this.runDir?.remove();
  }

  private nodeDir(i: number): string {
    return join(this.dir, `n${i + 1}`);
  }

  private dataDir(i: number): string {
    return join(this.nodeDir(i), 'data');
  }

  private errorLog(i: number): string {
    return join(this.nodeDir(i), 'error.log');
  }

  /** Starts node i and waits until it is Synced and ready. */
  private async boot(i: number, extra: string[] = []): Promise<void> {
    const node = this.nodes[i];
    const nodeDir = this.nodeDir(i);
    const pidFile = join(nodeDir, 'mariadbd.pid');
    await rm(pidFile, { force: true });
    // An rsync SST as root writes as nobody: it must own the folder (mariadbd, as root, can use anything).
    if (this.asRoot) await run('chown', ['-R', 'nobody:', this.dataDir(i)]);
    const cluster = this.nodes.map((other) => `127.0.0.1:${other.gcommPort}`).join(',');
    const args = [
      '--no-defaults',
      ...(this.asRoot ? ['--user=root'] : []),
      `--datadir=${this.dataDir(i)}`,
      `--tmpdir=${nodeDir}`,
      '--bind-address=127.0.0.1',
      `--port=${node.port}`,
      `--socket=${join(nodeDir, 'mariadbd.sock')}`,
      `--pid-file=${pidFile}`,
      `--log-error=${this.errorLog(i)}`,
      '--skip-name-resolve',
      '--performance-schema=OFF',
      '--innodb-buffer-pool-size=32M',
      '--innodb-log-file-size=8M',
      // Durable against a killed process (the OS still holds the log); Galera replicates before commit anyway.
      '--innodb-flush-log-at-trx-commit=2',
      '--max-connections=200',
      '--wsrep-on=ON',
      `--wsrep-provider=${PROVIDER}`,
      `--wsrep-cluster-name=${this.clusterName}`,
      `--wsrep-cluster-address=gcomm://${cluster}`,
      `--wsrep-node-name=n${i + 1}`,
      '--wsrep-node-address=127.0.0.1',
      `--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:${node.gcommPort};ist.recv_addr=127.0.0.1:${node.istPort};gcache.size=32M;${GCOMM_TIMERS}`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${node.sstPort}`,
      '--binlog-format=ROW',
      '--default-storage-engine=InnoDB',
      '--innodb-autoinc-lock-mode=2',
      ...this.extraArgs,
      ...extra,
    ];
    const server = new ManagedProcess(MARIADBD, args, {
      env: baseEnv({ HOME: nodeDir }),
      logFile: join(nodeDir, 'output.log'),
      cwd: nodeDir,
      runDir: this.runDir!,
    });
    this.servers[i] = server;
    this.startedPids.add(server.pid);
    node.pid = server.pid;
    await waitFor(
      `Galera node ${i + 1} to be synced`,
      this.bootTimeoutMs,
      async () => {
        if (!server.running) throw new GiveUp(`node ${i + 1} exited`);
        const connection = await this.connect(i);
        try {
          const [rows] = await connection.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state_comment')");
          const status = Object.fromEntries(
            (rows as { Variable_name: string; Value: string }[]).map((row) => [row.Variable_name, row.Value]),
          );
          return status.wsrep_ready === 'ON' && status.wsrep_local_state_comment === 'Synced';
        } finally {
          await connection.end();
        }
      },
      250,
    );
    // mariadbd is the process we spawned; its pid file is only read to confirm.
    const written = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
    if (written && written !== server.pid) throw new Error(`node ${i + 1} wrote pid ${written}, started ${server.pid}`);
  }
}
