/** What the rules of automatic mail read of a message: its headers by lower-case name (every value of each). */
export interface AutomaticMailFacts {
  headers: ReadonlyMap<string, readonly string[]>;
  /** The canonical From address, if any. */
  from?: string;
}

const BULK_PRECEDENCE = new Set(['bulk', 'junk', 'list', 'auto_reply']);
const REPORT_TYPES = new Set(['delivery-status', 'disposition-notification']);

function first(facts: AutomaticMailFacts, name: string): string | undefined {
  return facts.headers.get(name)?.[0]?.trim();
}

/** The first token of a header value, before any `;` parameters, lower-cased. */
function token(value: string): string {
  return value.split(';')[0].trim().toLowerCase();
}

/**
 * Why a message was sent by a machine rather than a person, or null when nothing says so. A desk never answers
 * such a message and never makes a ticket of it (RFC 3834 section 2; a loop of two auto-responders would otherwise
 * go on forever):
 * - `Auto-Submitted` other than `no` (RFC 3834), `X-Autoreply` / `X-Autorespond` (what older responders set), and
 *   `Precedence: bulk | junk | list | auto_reply`;
 * - bounces and receipts: a `multipart/report` of delivery status (RFC 3464) or read receipts (RFC 8098), an
 *   empty `Return-Path` (`<>`, what an MTA sends notices from), and mail from `MAILER-DAEMON`.
 */
export function automaticMailReason(facts: AutomaticMailFacts): string | null {
  const autoSubmitted = first(facts, 'auto-submitted');
  if (autoSubmitted !== undefined && token(autoSubmitted) !== 'no') return `automatic: Auto-Submitted: ${token(autoSubmitted)}`;
  for (const name of ['x-autoreply', 'x-autorespond']) {
    if (facts.headers.has(name)) return `automatic: ${name === 'x-autoreply' ? 'X-Autoreply' : 'X-Autorespond'}`;
  }
  const precedence = first(facts, 'precedence');
  if (precedence !== undefined && BULK_PRECEDENCE.has(token(precedence))) return `automatic: Precedence: ${token(precedence)}`;
  const contentType = first(facts, 'content-type');
  if (contentType !== undefined && token(contentType) === 'multipart/report') {
    const reportType = /;\s*report-type\s*=\s*"?([\w-]+)"?/i.exec(contentType)?.[1]?.toLowerCase();
    if (reportType === undefined || REPORT_TYPES.has(reportType))
      return `bounce: multipart/report${reportType ? `; report-type=${reportType}` : ''}`;
  }
  const returnPath = first(facts, 'return-path');
  if (returnPath !== undefined && /^<\s*>$/.test(returnPath)) return 'bounce: empty Return-Path';
  if (facts.from !== undefined && /^mailer-daemon@/i.test(facts.from)) return 'bounce: from MAILER-DAEMON';
  return null;
}

/**
 * Whether the desk's own MTA (`trustedAuthservId`, the authserv-id its `Authentication-Results` headers start with)
 * found that the message fails DMARC. Headers from any other host are ignored: anyone can write one. Without a
 * trusted id, no header is believed.
 */
export function failsDmarc(headers: ReadonlyMap<string, readonly string[]>, trustedAuthservId: string | undefined): boolean {
  if (!trustedAuthservId) return false;
  const trusted = trustedAuthservId.toLowerCase();
  return (headers.get('authentication-results') ?? []).some((value) => {
    const [servId, ...results] = value.split(';');
    if (servId.trim().split(/\s+/)[0]?.toLowerCase() !== trusted) return false;
    return results.some((result) => /^\s*dmarc\s*=\s*fail\b/i.test(result));
  });
}
