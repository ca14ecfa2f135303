import { createHash } from 'node:crypto';
import { type AddressObject, type ParsedMail, simpleParser } from 'mailparser';
import { canonicalEmail } from '../../common/validation/email-address.js';

/** A file a mail carries, as the ticket will get it. */
export interface MailPart {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** What the desk's rules read of a received message (src/mail/inbound/inbound-mail.service.ts). */
export interface InboundMail {
  /** Without its angle brackets; `hash:<sha256 of the message>` for a message without a usable one. */
  messageId: string;
  /** Every header by lower-case name, each value unfolded as it was written (encoded words not decoded). */
  headers: ReadonlyMap<string, readonly string[]>;
  /** The canonical From address; undefined when it has none that a ticket could name. */
  from?: string;
  /** The canonical addresses of To, Cc and Delivered-To, each once. */
  recipients: { to: string[]; cc: string[]; deliveredTo: string[] };
  subject?: string;
  /** In-Reply-To first, then References from the newest, without angle brackets, each once. */
  references: string[];
  /** The text part, or the HTML part as text; '' when it has neither. */
  text: string;
  parts: MailPart[];
  raw: Buffer;
}

/** Whether a Message-ID can be stored and looked up: printable ASCII, at most 255 characters (its columns'). */
function storable(id: string): boolean {
  return id.length <= 255 && /^[\x21-\x7e]+$/.test(id);
}

/** The storable Message-IDs of a header value: its `<left@right>` tokens. */
function messageIds(value: string | string[] | undefined): string[] {
  const values = Array.isArray(value) ? value : value ? [value] : [];
  return values.flatMap((one) => [...one.matchAll(/<([^<>\s]+)>/g)].map((match) => match[1])).filter(storable);
}

/** A Message-ID as stored; the message's hash stands in for a missing or unusable one. */
function storableId(id: string | undefined, raw: Buffer): string {
  return id ?? messageHash(raw);
}

/** What stands in for the Message-ID of a message without a usable one: the same bytes give the same id. */
export function messageHash(raw: Buffer): string {
  return `hash:${createHash('sha256').update(raw).digest('hex')}`;
}

function addresses(objects: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(objects) ? objects : objects ? [objects] : [];
  const flat = list.flatMap((object) => object.value.flatMap((entry) => (entry.group ? entry.group : [entry])));
  return [...new Set(flat.map((entry) => canonicalEmail(entry.address)).filter((address): address is string => address !== undefined))];
}

function headerMap(parsed: ParsedMail): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  for (const { key, line } of parsed.headerLines) {
    const value = line
      .slice(line.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    headers.set(key, [...(headers.get(key) ?? []), value]);
  }
  return headers;
}

/**
 * Reads a raw RFC 5322 message with `mailparser`, which is lenient by design: malformed MIME, unknown charsets and
 * 8-bit headers come out as the best text it can make, never as an exception.
 */
export async function readInboundMail(raw: Buffer): Promise<InboundMail> {
  const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, maxHtmlLengthToParse: 5 * 1024 * 1024 });
  const headers = headerMap(parsed);
  const inReplyTo = messageIds(headers.get('in-reply-to'));
  const references = messageIds(headers.get('references')).reverse();
  const deliveredTo = (headers.get('delivered-to') ?? []).map((value) => canonicalEmail(value.replace(/^<|>$/g, '')));
  return {
    messageId: storableId(messageIds(headers.get('message-id'))[0], raw),
    headers,
    from: addresses(parsed.from)[0],
    recipients: {
      to: addresses(parsed.to),
      cc: addresses(parsed.cc),
      deliveredTo: deliveredTo.filter((address): address is string => address !== undefined),
    },
    subject: parsed.subject,
    references: [...new Set([...inReplyTo, ...references])],
    text: (parsed.text ?? '').replace(/\r\n/g, '\n'),
    parts: parsed.attachments.map((attachment, index) => ({
      filename: attachment.filename ?? `part-${index + 1}${attachment.contentType === 'message/rfc822' ? '.eml' : ''}`,
      contentType: attachment.contentType,
      content: attachment.content,
    })),
    raw,
  };
}
