import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { Counter, Gauge, type Registry } from './prom-client.js';

/**
 * Micrometer's process and system meters under their Prometheus names, and prom-client's process CPU counters
 * (process_cpu_user_seconds_total, process_cpu_system_seconds_total, process_cpu_seconds_total, kept here without
 * prom-client's exemplar support), beside prom-client's other Node.js defaults ( process_resident_memory_bytes, process_start_time_seconds, nodejs_eventloop_lag_*,
 * nodejs_heap_*, nodejs_gc_duration_seconds, …): the names a Spring dashboard's CPU, uptime and files panels query.
 */
export function registerProcessMetrics(registry: Registry): void {
  const cores = availableParallelism();
  registerCpuSeconds(registry);
  let last = { cpu: process.cpuUsage(), at: process.hrtime.bigint() };
  new Gauge({
    name: 'process_cpu_usage',
    help: 'The "recent cpu usage" for the process: CPU time since the previous scrape over wall time and cores, 0..1',
    registers: [registry],
    collect() {
      const now = { cpu: process.cpuUsage(), at: process.hrtime.bigint() };
      const cpuMicros = now.cpu.user - last.cpu.user + (now.cpu.system - last.cpu.system);
      const wallMicros = Number(now.at - last.at) / 1000;
      last = now;
      this.set(wallMicros > 0 ? Math.min(1, cpuMicros / wallMicros / cores) : 0);
    },
  });
  // Micrometer's name, which Spring dashboards query, though the naming rules keep `_count` for summaries and histograms.
  new Gauge({
    name: 'system_cpu_count',
    help: 'The number of processors available to the process',
    registers: [registry],
    collect() {
      this.set(cores);
    },
  });
  new Gauge({
    name: 'system_load_average_1m',
    help: 'The system load average for the last minute',
    registers: [registry],
    collect() {
      this.set(loadavg()[0]);
    },
  });
  new Gauge({
    name: 'process_uptime_seconds',
    help: 'The uptime of the process',
    registers: [registry],
    collect() {
      this.set(process.uptime());
    },
  });
  // Linux only (/proc), as the Spring service's were Unix only; left out where /proc is missing.
  if (openFiles() === undefined) return;
  new Gauge({
    name: 'process_files_open_files',
    help: 'The open file descriptor count',
    registers: [registry],
    collect() {
      this.set(openFiles() ?? NaN);
    },
  });
  new Gauge({
    name: 'process_files_max_files',
    help: 'The maximum file descriptor count',
    registers: [registry],
    collect() {
      this.set(maxFiles());
    },
  });
}

function registerCpuSeconds(registry: Registry): void {
  const counter = (name: string, help: string, read: (usage: NodeJS.CpuUsage) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read(process.cpuUsage()) / 1e6);
      },
    });
  counter('process_cpu_user_seconds_total', 'Total user CPU time spent in seconds', (usage) => usage.user);
  counter('process_cpu_system_seconds_total', 'Total system CPU time spent in seconds', (usage) => usage.system);
  counter('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds', (usage) => usage.user + usage.system);
}

function openFiles(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

function maxFiles(): number {
  try {
    const limit = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return limit === undefined ? NaN : Number(limit);
  } catch {
    return NaN;
  }
}
