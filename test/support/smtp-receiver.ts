import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { waitUntil } from './waits.js';

/** A message the receiver accepted: its envelope, its bytes and what mailparser makes of them. */
export interface ReceivedMail {
  envelopeTo: string[];
  raw: string;
  parsed: ParsedMail;
  /** Its Message-ID, without angle brackets. */
  messageId: string;
  receivedAt: number;
}

/**
 * A real SMTP server (the `smtp-server` package) on 127.0.0.1 that keeps every message it accepts. `refuse` makes it
 * answer RCPT TO for matching addresses with a 5xx; `stop` and `start` take it away and bring it back on the same port.
 */
export class SmtpReceiver {
  readonly received: ReceivedMail[] = [];
  /** Recipients answered `550 5.1.1` at RCPT TO. */
  refuse: (address: string) => boolean = () => false;
  private server?: SMTPServer;

  private constructor(public port: number) {}

  static async start(port = 0): Promise<SmtpReceiver> {
    const receiver = new SmtpReceiver(port);
    await receiver.start();
    return receiver;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      // Stopping drops the connections a sender keeps open (nodemailer's pool) instead of waiting for them to end.
      closeTimeout: 100,
      onRcptTo: (address, _session, callback) => {
        if (!this.refuse(address.address)) return callback();
        callback(Object.assign(new Error('5.1.1 No such user here'), { responseCode: 550 }));
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          void simpleParser(raw).then((parsed) => {
            this.received.push({
              envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
              raw: raw.toString('utf8'),
              parsed,
              messageId: (parsed.messageId ?? '').replace(/^<|>$/g, ''),
              receivedAt: Date.now(),
            });
            callback();
          }, callback);
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The messages sent to `address` so far. */
  to(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.envelopeTo.includes(address.toLowerCase()));
  }

  /** Waits until `count` messages were sent to `address`, and answers them. */
  async waitFor(address: string, count = 1, timeoutMs = 15_000): Promise<ReceivedMail[]> {
    await waitUntil(() => this.to(address).length >= count, timeoutMs, `${count} mail(s) to ${address}`);
    return this.to(address);
  }
}
