import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { freePorts, ManagedProcess, RunDir, tcpAccepts, waitFor } from './clusters/processes.js';

/** The one mailbox user of a test's Dovecot. */
export const MAILBOX_USER = 'desk@desk.test';
export const MAILBOX_PASSWORD = 'a-mailbox-password';

/**
 * A real IMAP server for a test: Debian's Dovecot, started in the foreground with a configuration, a passwd file
 * and a mail folder of its own in a run folder, on a port of its own, stopped by pid (like the cluster harnesses).
 * As root, mail is stored as `nobody` (Dovecot refuses uid 0 for mail); otherwise as the test's own user.
 */
export class DovecotServer {
  private constructor(
    private readonly runDir: RunDir,
    private readonly process: ManagedProcess,
    readonly port: number,
  ) {}

  static async start(): Promise<DovecotServer> {
    const runDir = await RunDir.create('dovecot-');
    const dir = runDir.path;
    // Dovecot's login processes (dovenull) pass through the folder to their sockets.
    await chmod(dir, 0o755);
    const [port] = await freePorts(1);
    const root = process.getuid?.() === 0;
    const me = userInfo().username;
    const mailUser = root ? 'nobody' : me;
    for (const folder of ['run', 'state', 'mail', 'home']) await mkdir(join(dir, folder));
    if (root) for (const folder of ['mail', 'home']) await chown(join(dir, folder), 65534, 65534);
    await writeFile(join(dir, 'passwd'), `${MAILBOX_USER}:{PLAIN}${MAILBOX_PASSWORD}::::::\n`);
    await writeFile(
      join(dir, 'dovecot.conf'),
      `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
instance_name = dovecot-${port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%u
first_valid_uid = 1
default_internal_user = ${root ? 'dovecot' : me}
default_login_user = ${root ? 'dovenull' : me}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service pop3-login {
  inet_listener pop3 {
    port = 0
  }
}
service submission-login {
  inet_listener submission {
    port = 0
  }
}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${mailUser} gid=${root ? 'nogroup' : mailUser} home=${dir}/home/%u
}
namespace inbox {
  inbox = yes
  separator = /
}
`,
    );
    const server = new ManagedProcess('/usr/sbin/dovecot', ['-F', '-c', join(dir, 'dovecot.conf')], {
      env: process.env,
      logFile: join(dir, 'dovecot.out'),
      runDir,
    });
    await waitFor('Dovecot to accept connections', 20_000, () => tcpAccepts(port));
    return new DovecotServer(runDir, server, port);
  }

  /** MAIL_IMAP_URL for the service, reading INBOX. */
  get url(): string {
    return `imap://${encodeURIComponent(MAILBOX_USER)}:${MAILBOX_PASSWORD}@127.0.0.1:${this.port}/INBOX`;
  }

  /** A client of the mailbox for the test itself (appending, looking into folders). */
  async client(): Promise<ImapFlow> {
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: this.port,
      secure: false,
      auth: { user: MAILBOX_USER, pass: MAILBOX_PASSWORD },
      logger: false,
    });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }

  /** Appends raw messages to a folder (INBOX by default), as an MTA delivering them would. */
  async append(messages: Array<Buffer | string>, folder = 'INBOX'): Promise<void> {
    const client = await this.client();
    try {
      for (const message of messages) await client.append(folder, message);
    } finally {
      await client.logout();
    }
  }

  /** How many messages each folder holds, and how many of them are unseen. */
  async folders(): Promise<Map<string, { messages: number; unseen: number }>> {
    const client = await this.client();
    try {
      const listed = await client.list({ statusQuery: { messages: true, unseen: true } });
      return new Map(listed.map((folder) => [folder.path, { messages: folder.status?.messages ?? 0, unseen: folder.status?.unseen ?? 0 }]));
    } finally {
      await client.logout();
    }
  }

  async stop(): Promise<void> {
    await this.process.stop();
    await this.runDir.remove();
  }
}
