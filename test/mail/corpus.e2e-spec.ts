import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestApp } from '../support/test-app.js';
import { download } from '../support/attachment-uploads.js';
import { newMessageId, newSender, rawMail } from '../support/raw-mail.js';
import { deskAddress, replyAddress } from '../../src/mail/reply-address.js';

const SECRET = 'a-reply-secret-for-the-tests-only';
const CORPUS = new URL('corpus/', import.meta.url).pathname;

/** A corpus message with its placeholders filled in, CRLF line ends as on the wire. */
function corpusMail(name: string, values: Record<string, string>): Buffer {
  const text = readFileSync(join(CORPUS, name), 'utf8').replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key]);
  return Buffer.from(text.replace(/\r?\n/g, '\r\n'));
}

describe('Real-world shaped mail: replies thread onto their ticket and keep only the new text', () => {
  const handle = useTestApp({ env: { MAIL_FROM: 'IT Support <support@desk.test>', MAIL_REPLY_SECRET: SECRET } });

  async function post(raw: Buffer): Promise<{ outcome: string; ticketId: number }> {
    return (await handle.http.post('/api/v2/inbound-email').set('Content-Type', 'message/rfc822').send(raw).expect(200)).body;
  }

  /** A ticket opened by mail, and what a reply to its first message fills its placeholders with. */
  async function openedByMail(): Promise<Record<string, string>> {
    const from = newSender();
    const first = newMessageId();
    const { ticketId } = await post(rawMail({ from, messageId: first, subject: 'Printer on floor 3 jams' }));
    const token = replyAddress(deskAddress('support@desk.test'), SECRET, ticketId).slice('support+'.length).split('@')[0];
    return { FROM: from, ANSWERED: first, ID: String(ticketId), MSGID: newMessageId(), TOKEN: token };
  }

  it.each([
    ['outlook-reply.eml', 'The printer works again after the update.'],
    ['gmail-reply.eml', 'Thanks, that fixed it.'],
    ['apple-mail-reply.eml', 'I will try it tomorrow morning.'],
    ['html-only-reply.eml', 'Restarted it, all good & printing.'],
    ['latin1-reply.eml', 'Vielen Dank, der Drucker läuft wieder.\n\nGrüße\nJürgen'],
    ['reply-with-attachment.eml', 'Here is the error log you asked for.'],
  ])('%s', async (name, expected) => {
    const values = await openedByMail();
    const result = await post(corpusMail(name, values));
    expect(result).toEqual({ outcome: 'commented', ticketId: Number(values.ID), reason: null });
    const [comment] = (await handle.http.get(`/api/v2/tickets/${values.ID}/comments`).expect(200)).body.items;
    expect(comment).toMatchObject({ body: expected, author: values.FROM, visibility: 'PUBLIC' });
    const files = (await handle.http.get(`/api/v2/tickets/${values.ID}/attachments`).expect(200)).body.items as Array<Record<string, any>>;
    const named = files.filter((file) => comment.attachmentIds.includes(file.id)).map((file) => file.filename);
    expect(named).toEqual(name === 'reply-with-attachment.eml' ? ['message.eml', 'printer-log.txt'] : ['message.eml']);
    if (name === 'reply-with-attachment.eml') {
      const log = files.find((file) => file.filename === 'printer-log.txt')!;
      const content = await download(handle.http, `/api/v2/tickets/${values.ID}/attachments/${log.id}/content`);
      expect(content.bytes.toString()).toBe('Error 42: paper jam in tray 2\n');
    }
  });

  it('forwarded mail opens a ticket holding what was forwarded', async () => {
    const from = newSender();
    const result = await post(corpusMail('forwarded.eml', { FROM: from, MSGID: newMessageId() }));
    expect(result.outcome).toBe('created');
    const ticket = (await handle.http.get(`/api/v2/tickets/${result.ticketId}`).expect(200)).body;
    expect(ticket.title).toBe('VPN certificate expires on Friday');
    expect(ticket.requesterEmail).toBe(from);
    expect(ticket.description).toMatch(/^Can you renew this for me\?\n\n-+ Forwarded message -+\n/);
    expect(ticket.description).toContain('Your VPN certificate expires on 27 November 2026.');
  });
});
