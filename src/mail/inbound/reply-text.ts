import EmailReplyParser from 'email-reply-parser';

const parser = new EmailReplyParser();

/**
 * Outlook's quoted history starts with its own header block, which the reply parser (made for `On … wrote:` and `>`
 * quoting) misses when it is preceded by a rule or written in another language.
 */
const OUTLOOK_HISTORY = /^(?:_{10,}|-{3,}\s*Original Message\s*-{3,}|-{3,}\s*Ursprüngliche Nachricht\s*-{3,})\s*$/im;

/**
 * How much of a message's text the reply parser reads: its quote-header patterns backtrack in time that grows with the
 * square of the text (64 KiB of crafted lines take a tenth of a second, megabytes would block the process), while the
 * new text of a reply is at its top and a comment holds 10,000 characters anyway.
 */
const PARSED_MAX = 16 * 1024;

/**
 * The new text of a reply: quoted history and signature removed (by `email-reply-parser`, Crisp's maintained port of
 * GitHub's parser), blank lines at either end trimmed. A reply with no new text at all answers ''.
 */
export function replyText(text: string): string {
  const normalized = text.slice(0, PARSED_MAX).replace(/\r\n/g, '\n');
  const outlook = OUTLOOK_HISTORY.exec(normalized);
  const before = outlook ? normalized.slice(0, outlook.index) : normalized;
  return parser
    .parseReply(before)
    .replace(/^\s*\n/, '')
    .trimEnd();
}
