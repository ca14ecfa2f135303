import { randomBytes } from 'node:crypto';

export interface RawMailOptions {
  from: string;
  to?: string;
  cc?: string;
  subject?: string;
  /** Without angle brackets; a fresh one unless given; null for none. */
  messageId?: string | null;
  inReplyTo?: string;
  references?: string[];
  /** Further header lines, written as given ("Auto-Submitted: auto-replied"). */
  headers?: string[];
  text?: string;
  /** With `text`: multipart/alternative; alone: an HTML-only message. */
  html?: string;
  attachments?: Array<{ filename: string; contentType: string; content: Buffer }>;
}

export function newMessageId(): string {
  return `${randomBytes(8).toString('hex')}@client.test`;
}

/** A unique sender, so that the per-sender limit of one test never counts another's mail. */
export function newSender(domain = 'customer.test'): string {
  return `person-${randomBytes(4).toString('hex')}@${domain}`;
}

function base64Lines(content: Buffer): string {
  return (content.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');
}

/** A message as a mail client writes it: CRLF line ends, MIME when it has more than one part. */
export function rawMail(options: RawMailOptions): Buffer {
  const messageId = options.messageId === undefined ? newMessageId() : options.messageId;
  const head = [
    `From: ${options.from}`,
    `To: ${options.to ?? 'IT Support <support@desk.test>'}`,
    ...(options.cc ? [`Cc: ${options.cc}`] : []),
    `Subject: ${options.subject ?? 'Printer on floor 3 jams'}`,
    'Date: Mon, 23 Nov 2026 10:00:00 +0000',
    ...(messageId === null ? [] : [`Message-ID: <${messageId}>`]),
    ...(options.inReplyTo ? [`In-Reply-To: <${options.inReplyTo}>`] : []),
    ...(options.references ? [`References: ${options.references.map((id) => `<${id}>`).join(' ')}`] : []),
    'MIME-Version: 1.0',
    ...(options.headers ?? []),
  ];
  const text = options.text ?? (options.html ? undefined : 'The printer jams on every page.');
  const bodyParts: string[] = [];
  if (text !== undefined && options.html !== undefined) {
    bodyParts.push(
      `Content-Type: multipart/alternative; boundary="alt"\r\n\r\n--alt\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}\r\n--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${options.html}\r\n--alt--`,
    );
  } else if (options.html !== undefined) {
    bodyParts.push(`Content-Type: text/html; charset=utf-8\r\n\r\n${options.html}`);
  } else {
    bodyParts.push(`Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${text}`);
  }
  const attachments = options.attachments ?? [];
  if (attachments.length === 0) return Buffer.from(`${head.join('\r\n')}\r\n${bodyParts[0]}\r\n`);
  const parts = [
    bodyParts[0],
    ...attachments.map(
      (file) =>
        `Content-Type: ${file.contentType}; name="${file.filename}"\r\nContent-Disposition: attachment; filename="${file.filename}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Lines(file.content)}`,
    ),
  ];
  return Buffer.from(
    `${head.join('\r\n')}\r\nContent-Type: multipart/mixed; boundary="mixed"\r\n\r\n${parts.map((part) => `--mixed\r\n${part}\r\n`).join('')}--mixed--\r\n`,
  );
}
