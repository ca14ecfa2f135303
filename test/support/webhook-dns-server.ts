import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What the server answers for a name: its A and AAAA addresses after `delayMs`, or nothing at all (`silent`). */
export interface DnsAnswer {
  addresses?: string[];
  delayMs?: number;
  silent?: boolean;
}

const A = 1;
const AAAA = 28;

/**
 * A real DNS server over UDP on 127.0.0.1 for webhook tests: answers the names it is given (A and AAAA records,
 * NXDOMAIN for any other name), late or never when told to. Every question it gets is recorded.
 */
export class WebhookDnsServer {
  readonly questions: Array<{ name: string; type: 'A' | 'AAAA' | number }> = [];
  readonly answers = new Map<string, DnsAnswer>();

  private constructor(private readonly socket: Socket) {
    socket.on('message', (message, remote) => this.answer(message, remote));
  }

  static async start(): Promise<WebhookDnsServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new WebhookDnsServer(socket);
  }

  /** As WEBHOOKS_DNS_SERVERS takes it. */
  get address(): string {
    return `127.0.0.1:${this.socket.address().port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private answer(message: Buffer, remote: RemoteInfo): void {
    const { name, type, questionEnd } = readQuestion(message);
    this.questions.push({ name, type: type === A ? 'A' : type === AAAA ? 'AAAA' : type });
    const answer = this.answers.get(name.toLowerCase());
    if (answer?.silent) return;
    const records = (answer?.addresses ?? [])
      .filter((address) => (type === A ? isIPv4(address) : type === AAAA && !isIPv4(address)))
      .map((address) => ipaddr.parse(address).toByteArray());
    const header = Buffer.alloc(12);
    message.copy(header, 0, 0, 2); // the query's id
    header.writeUInt16BE(0x8180 | (answer ? 0 : 3), 2); // a response, recursion available; NXDOMAIN for unknown names
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    const question = message.subarray(12, questionEnd);
    const answers = records.map((bytes) => {
      const record = Buffer.alloc(12 + bytes.length);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(60, 6); // TTL
      record.writeUInt16BE(bytes.length, 10);
      Buffer.from(bytes).copy(record, 12);
      return record;
    });
    const send = () => this.socket.send(Buffer.concat([header, question, ...answers]), remote.port, remote.address);
    if (answer?.delayMs) setTimeout(send, answer.delayMs);
    else send();
  }
}

function readQuestion(message: Buffer): { name: string; type: number; questionEnd: number } {
  const labels: string[] = [];
  let offset = 12;
  while (message[offset] !== 0) {
    const length = message[offset];
    labels.push(message.toString('ascii', offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  const type = message.readUInt16BE(offset + 1);
  return { name: labels.join('.'), type, questionEnd: offset + 5 };
}
