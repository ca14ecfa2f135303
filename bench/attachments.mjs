// The attachments benchmark (npm run bench:attachments): N parallel uploads of 25 MiB (default 20) to the built
// service as a real process, its resident memory (VmRSS, sampled every 20 ms) before and during them, then the same
// files downloaded in parallel; upload and download throughput in MB/s (MiB of file content per second, all clients
// together), and a single upload and download alone. Options: --uploads=<n>, --size-mib=<n>,
// --storage=database|filesystem. The clients stream their bodies from one 1 MiB buffer, so the benchmark's own memory
// stays small; each file's bytes differ (its chunk index is written into every chunk), so no storage could dedupe.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { removeBrokerObjects } from './broker.mjs';
import { assertPortFree, startProcess } from './process.mjs';
import { adminConnection, dropDatabases } from './seed.mjs';

const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const UPLOADS = Number(arg('uploads', 20));
const SIZE = Number(arg('size-mib', 25)) * 1024 * 1024;
const STORAGE = arg('storage', 'database');
const MiB = 1024 * 1024;
const PORT = 18095;
const DB = 'tickets_bench_attachments';
const BROKER = {
  RABBITMQ_EXCHANGE: 'ticket.bench.attachments.exchange',
  RABBITMQ_QUEUE: 'ticket.bench.attachments.queue',
  RABBITMQ_ROUTING_KEY: 'ticket.bench.attachments',
};
const root = fileURLToPath(new URL('..', import.meta.url));
const base = randomBytes(MiB);

async function main() {
  await assertPortFree(PORT);
  const admin = await adminConnection();
  const directory = await mkdtemp(join(tmpdir(), 'bench-attachments-'));
  const env = {
    DB_DATABASE: DB,
    ...BROKER,
    LOG_LEVEL: 'warn',
    ATTACHMENTS_STORAGE: STORAGE,
    ATTACHMENTS_DIRECTORY: directory,
    // A loaded machine may take longer than the default 30 s to receive 20 parallel uploads.
    SERVER_REQUEST_TIMEOUT_MS: '300000',
  };
  const service = await startProcess('service', ['dist/main.js'], { cwd: root, port: PORT, env });
  try {
    const tickets = [];
    for (let i = 0; i < UPLOADS; i++) tickets.push((await json('POST', '/api/tickets', ticketBody())).id);
    // Warm-up: one upload and download, so that what is measured is not the first use of the code paths.
    const warm = await upload(tickets[0], 2 * MiB, 999);
    await download(`/api/tickets/${tickets[0]}/attachments/${warm.id}/content`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const baseline = await rss(service.pid);

    const single = await timed(() => upload(tickets[0], SIZE, 0));
    const singleDown = await timed(() => download(`/api/tickets/${tickets[0]}/attachments/${single.value.id}/content`));

    const sampler = sample(service.pid);
    const uploads = await timed(() => Promise.all(tickets.map((ticket, i) => upload(ticket, SIZE, i + 1))));
    const uploadPeak = sampler.stop();
    const downloadSampler = sample(service.pid);
    const downloads = await timed(() =>
      Promise.all(uploads.value.map((a) => download(`/api/tickets/${a.ticketId}/attachments/${a.id}/content`))),
    );
    const downloadPeak = downloadSampler.stop();
    for (const [i, bytes] of downloads.value.entries()) {
      if (bytes !== SIZE) throw new Error(`download ${i} had ${bytes} bytes, not ${SIZE}`);
    }

    const mib = SIZE / MiB;
    const rate = (count, ms) => ((count * mib) / (ms / 1000)).toFixed(1);
    console.log(`\nAttachments (${STORAGE} storage): ${UPLOADS} parallel uploads of ${mib} MiB, raw bodies\n`);
    console.log('| measure | value |\n|---|---|');
    console.log(`| service RSS before | ${mb(baseline)} MB |`);
    console.log(`| RSS peak during the ${UPLOADS} uploads | ${mb(uploadPeak)} MB (+${mb(uploadPeak - baseline)} MB) |`);
    console.log(`| RSS peak during the ${UPLOADS} downloads | ${mb(downloadPeak)} MB (+${mb(downloadPeak - baseline)} MB) |`);
    console.log(`| ${UPLOADS} parallel uploads | ${(uploads.ms / 1000).toFixed(1)} s, ${rate(UPLOADS, uploads.ms)} MB/s together |`);
    console.log(`| ${UPLOADS} parallel downloads | ${(downloads.ms / 1000).toFixed(1)} s, ${rate(UPLOADS, downloads.ms)} MB/s together |`);
    console.log(`| one upload alone | ${(single.ms / 1000).toFixed(2)} s, ${rate(1, single.ms)} MB/s |`);
    console.log(`| one download alone | ${(singleDown.ms / 1000).toFixed(2)} s, ${rate(1, singleDown.ms)} MB/s |`);
  } finally {
    await service.stop();
    await dropDatabases(admin, [DB]);
    await admin.end();
    await removeBrokerObjects(BROKER);
    await rm(directory, { recursive: true, force: true });
  }
}

function ticketBody() {
  return { title: 'Bench', description: 'Attachments benchmark', status: 'OPEN', priority: 'LOW', requesterEmail: 'bench@example.com' };
}

function mb(bytes) {
  return (bytes / 1_000_000).toFixed(0);
}

async function timed(work) {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** The service's resident set (VmRSS), in bytes. */
async function rss(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

function sample(pid) {
  let peak = 0;
  const timer = setInterval(
    () =>
      void rss(pid).then(
        (value) => (peak = Math.max(peak, value)),
        () => undefined,
      ),
    20,
  );
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

function json(method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port: PORT,
        method,
        path,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => collect(res, resolve, reject),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function collect(res, resolve, reject) {
  const chunks = [];
  res.on('data', (chunk) => chunks.push(chunk));
  res.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    if (res.statusCode >= 300) reject(new Error(`${res.statusCode}: ${text}`));
    else resolve(JSON.parse(text));
  });
}

/** A raw upload of `size` bytes, written a MiB at a time as the socket drains. */
function upload(ticketId, size, salt) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: PORT,
        method: 'POST',
        path: `/api/tickets/${ticketId}/attachments`,
        headers: {
          'content-type': 'application/octet-stream',
          'content-length': size,
          'content-disposition': `attachment; filename="bench-${salt}.bin"`,
        },
      },
      (res) => collect(res, resolve, reject),
    );
    req.on('error', reject);
    let sent = 0;
    const write = () => {
      while (sent < size) {
        const chunk = Buffer.from(base.subarray(0, Math.min(MiB, size - sent)));
        chunk.writeUInt32BE(salt, 0);
        chunk.writeUInt32BE(sent / MiB, 4);
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

/** Downloads and counts the bytes, keeping none. */
function download(path) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: PORT, path }, (res) => {
        let bytes = 0;
        res.on('data', (chunk) => (bytes += chunk.length));
        res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`download answered ${res.statusCode}`))));
        // A download the service cut off ends without 'end': fail instead of waiting for ever.
        res.on('close', () => res.complete || reject(new Error(`download cut off after ${bytes} bytes`)));
      })
      .on('error', reject);
  });
}

await main();
