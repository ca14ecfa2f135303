// The email benchmark (npm run bench:mail): how long a mailbox of --messages=<n> (default 1000) new mails takes to
// become tickets, read over IMAP from a Dovecot of its own, and the delay from a public comment (its 201) to its
// mail at an SMTP server (smtp-server, in this process), p50 and p99 over --comments=<n> (default 200) comments,
// posted --rate=<n> a second (default 20). Needs Debian's Dovecot (scripts/ensure-dovecot.sh).
import { spawn } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ImapFlow } from 'imapflow';
import { SMTPServer } from 'smtp-server';
import { assertPortFree, startProcess } from './process.mjs';
import { adminConnection, dropDatabases } from './seed.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const MESSAGES = arg('messages', 1000);
const COMMENTS = arg('comments', 200);
const RATE = arg('rate', 20);
const DB = 'tickets_bench_mail';
const PORT = 18095;
const IMAP_PORT = 18143;
const SMTP_PORT = 18025;
const USER = 'desk@desk.test';
const PASSWORD = 'bench';
const root = fileURLToPath(new URL('..', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  await assertPortFree(PORT);
  const admin = await adminConnection();
  const dovecot = startDovecot();
  const smtp = await startSmtp();
  let service;
  try {
    await dropDatabases(admin, [DB]);
    await waitForImap();
    const client = await imapClient();
    for (let i = 0; i < MESSAGES; i++) await client.append('INBOX', message(i));
    await client.logout();

    const started = performance.now();
    service = await startProcess('service', ['dist/main.js'], {
      cwd: root,
      port: PORT,
      env: {
        DB_DATABASE: DB,
        LOG_LEVEL: 'warn',
        MAIL_IMAP_URL: `imap://${encodeURIComponent(USER)}:${PASSWORD}@127.0.0.1:${IMAP_PORT}/INBOX`,
        MAIL_SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}`,
        MAIL_FROM: `IT Support <support@desk.test>`,
        MAIL_REPLY_SECRET: 'a-reply-secret-for-the-benchmark',
      },
    });
    const ready = performance.now();
    while ((await ticketCount(service.url)) < MESSAGES) await sleep(100);
    const drained = performance.now();
    const acknowledged = smtp.count();

    const ids = await ticketIds(service.url);
    const delays = await commentDelays(service.url, smtp, ids);
    delays.sort((a, b) => a - b);
    const quantile = (q) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))].toFixed(1);
    console.log(`\nEmail: ${MESSAGES} messages in a Dovecot mailbox, one service replica\n`);
    console.log(`| measure | value |\n|---|---|`);
    console.log(`| ${MESSAGES} messages to tickets, from start-up | ${Math.round(drained - started)} ms |`);
    console.log(
      `| … from the service answering HTTP | ${Math.round(drained - ready)} ms (${Math.round(MESSAGES / ((drained - ready) / 1000))} messages/s) |`,
    );
    console.log(`| acknowledgements at the SMTP server by then | ${acknowledged} |`);
    console.log(
      `| public comment (201) to its mail at the SMTP server, ${delays.length} comments at ${RATE}/s | p50 ${quantile(0.5)} ms, p99 ${quantile(0.99)} ms |`,
    );
  } finally {
    await service?.stop();
    await new Promise((resolve) => smtp.server.close(resolve));
    dovecot.stop();
    await dropDatabases(admin, [DB]);
    await admin.end();
  }
}

function message(i) {
  const sender = `bench-${i}-${Date.now()}@customer.test`;
  return [
    `From: Person ${i} <${sender}>`,
    'To: IT Support <support@desk.test>',
    `Subject: Benchmark request ${i}`,
    `Message-ID: <bench-${i}-${Date.now()}@customer.test>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Request number ${i}: the printer on floor ${i % 9} jams.`,
    '',
  ].join('\r\n');
}

async function ticketCount(url) {
  const response = await fetch(`${url}/api/v2/tickets?limit=1`);
  return Number((await response.json()).total ?? 0);
}

async function ticketIds(url) {
  const response = await fetch(`${url}/api/v2/tickets?limit=${COMMENTS}`);
  return (await response.json()).items.map((ticket) => ticket.id);
}

/** Posts a public comment on each ticket at RATE a second; answers each one's delay to its mail's arrival. */
async function commentDelays(url, smtp, ids) {
  const posted = new Map();
  const pending = [];
  for (const [i, id] of ids.entries()) {
    const marker = `bench-comment-${id}-${i}`;
    const send = async () => {
      const response = await fetch(`${url}/api/v2/tickets/${id}/comments`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ body: marker, author: 'agent' }),
      });
      if (response.status !== 201) throw new Error(`comment answered ${response.status}`);
      posted.set(marker, performance.now());
    };
    pending.push(send());
    await sleep(1000 / RATE);
  }
  await Promise.all(pending);
  const deadline = Date.now() + 60_000;
  while ([...posted.keys()].some((marker) => !smtp.arrivals.has(marker)) && Date.now() < deadline) await sleep(50);
  return [...posted].filter(([marker]) => smtp.arrivals.has(marker)).map(([marker, at]) => smtp.arrivals.get(marker) - at);
}

function startSmtp() {
  const arrivals = new Map();
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    closeTimeout: 100,
    onData(stream, _session, callback) {
      let text = '';
      stream.on('data', (chunk) => (text += chunk));
      stream.on('end', () => {
        const at = performance.now();
        count++;
        const marker = /bench-comment-\d+-\d+/.exec(text)?.[0];
        if (marker && !arrivals.has(marker)) arrivals.set(marker, at);
        callback();
      });
    },
  });
  return new Promise((resolve) => server.listen(SMTP_PORT, '127.0.0.1', () => resolve({ server, arrivals, count: () => count })));
}

/** Dovecot in the foreground with a configuration and mail folder of its own (as test/support/dovecot-server.ts). */
function startDovecot() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-dovecot-'));
  chmodSync(dir, 0o755);
  for (const folder of ['run', 'state', 'mail', 'home']) mkdirSync(join(dir, folder));
  const rootUser = process.getuid() === 0;
  if (rootUser) for (const folder of ['mail', 'home']) chownSync(join(dir, folder), 65534, 65534);
  const me = process.env.USER ?? 'root';
  writeFileSync(join(dir, 'passwd'), `${USER}:{PLAIN}${PASSWORD}::::::\n`);
  writeFileSync(
    join(dir, 'dovecot.conf'),
    [
      `base_dir = ${dir}/run`,
      `state_dir = ${dir}/state`,
      `log_path = ${dir}/dovecot.log`,
      `instance_name = bench-dovecot`,
      'protocols = imap',
      'listen = 127.0.0.1',
      'ssl = no',
      'disable_plaintext_auth = no',
      `mail_location = maildir:${dir}/mail/%u`,
      'first_valid_uid = 1',
      `default_internal_user = ${rootUser ? 'dovecot' : me}`,
      `default_login_user = ${rootUser ? 'dovenull' : me}`,
      `service imap-login {\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${IMAP_PORT}\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}`,
      'service pop3-login {\n  inet_listener pop3 {\n    port = 0\n  }\n}',
      'service submission-login {\n  inet_listener submission {\n    port = 0\n  }\n}',
      `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u ${dir}/passwd\n}`,
      `userdb {\n  driver = static\n  args = uid=${rootUser ? 'nobody' : me} gid=${rootUser ? 'nogroup' : me} home=${dir}/home/%u\n}`,
      'namespace inbox {\n  inbox = yes\n  separator = /\n}',
      '',
    ].join('\n'),
  );
  const child = spawn('/usr/sbin/dovecot', ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: 'ignore' });
  return {
    stop() {
      child.kill('SIGTERM');
      setTimeout(() => rmSync(dir, { recursive: true, force: true }), 1000).unref();
    },
  };
}

function imapClient() {
  const client = new ImapFlow({ host: '127.0.0.1', port: IMAP_PORT, secure: false, auth: { user: USER, pass: PASSWORD }, logger: false });
  return client.connect().then(() => client);
}

async function waitForImap() {
  for (let i = 0; i < 100; i++) {
    try {
      const client = await imapClient();
      await client.logout();
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error('Dovecot did not start');
}

await main();
