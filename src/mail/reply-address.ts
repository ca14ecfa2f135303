import { createHmac, timingSafeEqual } from 'node:crypto';

/** The desk's address split at its `@`: replies go to `<local>+<token>@<domain>`. */
export interface DeskAddress {
  local: string;
  domain: string;
}

export function deskAddress(address: string): DeskAddress {
  const at = address.lastIndexOf('@');
  return { local: address.slice(0, at), domain: address.slice(at + 1) };
}

/**
 * The signature of a ticket id: 20 hex digits (80 bits) of HMAC-SHA256 with MAIL_REPLY_SECRET. Lower case only,
 * because some mail systems lower-case the local part of the addresses they pass on.
 */
function signature(secret: string, ticketId: number): string {
  return createHmac('sha256', secret).update(`ticket:${ticketId}`).digest('hex').slice(0, 20);
}

/** The address a ticket's mails ask to be answered at: `support+<id>.<signature>@example.com`. */
export function replyAddress(desk: DeskAddress, secret: string, ticketId: number): string {
  return `${desk.local}+${ticketId}.${signature(secret, ticketId)}@${desk.domain}`;
}

/**
 * The ticket a reply address among `addresses` names with a valid signature; undefined when none does. A token
 * that is forged or altered names nothing: the mail is threaded by the other rules.
 */
export function ticketOfReplyAddress(addresses: readonly string[], desk: DeskAddress, secret: string): number | undefined {
  const prefix = `${desk.local.toLowerCase()}+`;
  const suffix = `@${desk.domain.toLowerCase()}`;
  for (const address of addresses) {
    const lower = address.toLowerCase();
    if (!lower.startsWith(prefix) || !lower.endsWith(suffix)) continue;
    const match = /^(\d{1,15})\.([0-9a-f]{20})$/.exec(lower.slice(prefix.length, lower.length - suffix.length));
    if (!match) continue;
    const id = Number(match[1]);
    if (timingSafeEqual(Buffer.from(match[2]), Buffer.from(signature(secret, id)))) return id;
  }
  return undefined;
}

/** Whether an address is one of the desk's own, or one of their `+` variants (its reply addresses among them). */
export function isDeskAddress(address: string, own: readonly DeskAddress[]): boolean {
  const { local, domain } = deskAddress(address.toLowerCase());
  const base = local.split('+')[0];
  return own.some((desk) => desk.domain.toLowerCase() === domain && desk.local.toLowerCase().split('+')[0] === base);
}
