/** The longest title a ticket has (TicketRequest's title). */
const TITLE_MAX = 255;

/**
 * Reply and forward prefixes as mail clients write them, in the languages a desk meets most: Re, Fw, Fwd (English),
 * AW, WG (German), SV, VS (Nordic), Antw (Dutch), TR (French), RE[2] (counted replies); then the desk's own tag.
 */
const PREFIX = /^\s*(?:(?:re|fwd?|aw|wg|sv|vs|antw|tr)(?:\s*\[\d+\])?\s*:|\[#\d{1,18}\])\s*/i;

/** A new ticket's title from a mail's subject: its reply and forward prefixes and the desk's tag removed. */
export function ticketTitle(subject: string | undefined): string {
  let title = (subject ?? '').replace(/\s+/g, ' ').trim();
  for (let previous = ''; previous !== title;) {
    previous = title;
    title = title.replace(PREFIX, '');
  }
  const cut = [...title].slice(0, TITLE_MAX).join('').trim();
  return cut === '' ? '(no subject)' : cut;
}

/** The ticket id of the desk's tag `[#<id>]` in a subject, if it has one. */
export function subjectTicketId(subject: string | undefined): number | undefined {
  const match = /\[#(\d{1,15})\]/.exec(subject ?? '');
  return match ? Number(match[1]) : undefined;
}

/** The subject of the desk's mails about a ticket: its tag, then its title. */
export function taggedSubject(ticketId: number, title: string): string {
  return `[#${ticketId}] ${title}`;
}
