import type request from 'supertest';
import { useTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { newMessageId, newSender, rawMail, type RawMailOptions } from '../support/raw-mail.js';
import { SmtpReceiver } from '../support/smtp-receiver.js';
import { waitUntil } from '../support/waits.js';
import { deskAddress, replyAddress } from '../../src/mail/reply-address.js';

const SECRET = 'a-reply-secret-for-the-tests-only';
const DESK = deskAddress('support@desk.test');

type Http = ReturnType<typeof request>;

const receiver = await SmtpReceiver.start();

afterAll(async () => {
  await receiver.stop();
});

async function receive(http: Http, options: RawMailOptions): Promise<{ outcome: string; ticketId: number | null }> {
  const raw = rawMail(options);
  return (await http.post('/api/v2/inbound-email').set('Content-Type', 'message/rfc822').send(raw).expect(200)).body;
}

async function notificationsOf(http: Http, ticketId: number): Promise<Array<Record<string, any>>> {
  return (await http.get(`/api/v2/tickets/${ticketId}/notifications?limit=100`).expect(200)).body.items;
}

function comment(http: Http, ticketId: number, body: string, visibility = 'PUBLIC', author = 'agent.bob') {
  return http.post(`/api/v2/tickets/${ticketId}/comments`).send({ body, visibility, author }).expect(201);
}

function moveTo(http: Http, ticketId: number, status: string) {
  return http.patch(`/api/v2/tickets/${ticketId}`).set('Content-Type', 'application/merge-patch+json').send({ status }).expect(200);
}

describe('Notifications by email: the conversation threads in the requester’s mail client', () => {
  const handle = useTestApp({
    env: {
      MAIL_SMTP_URL: receiver.url,
      MAIL_FROM: 'IT Support <support@desk.test>',
      MAIL_DESK_ADDRESSES: 'helpdesk@desk.test',
      MAIL_REPLY_SECRET: SECRET,
      MAIL_SEND_POLL_INTERVAL_MS: '100',
      MAIL_RETRY_MAX_DELAY: '1s',
      MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE: 'health,info,prometheus',
    },
  });

  it('a mail to the desk gets an acknowledgement in its own thread; the agent’s answer follows it; the reply to that lands on the ticket', async () => {
    const requester = newSender();
    const first = newMessageId();
    const { ticketId } = await receive(handle.http, { from: `Anna <${requester}>`, messageId: first, subject: 'Printer jams' });

    const [ack] = await receiver.waitFor(requester);
    expect(ack.parsed.subject).toBe(`[#${ticketId}] Printer jams`);
    expect(ack.parsed.inReplyTo).toBe(`<${first}>`);
    expect(ack.parsed.references).toBe(`<${first}>`);
    expect(ack.parsed.replyTo?.value[0].address).toBe(replyAddress(DESK, SECRET, ticketId!));
    expect(ack.parsed.from?.value[0]).toEqual({ address: 'support@desk.test', name: 'IT Support' });
    expect(ack.parsed.headers.get('auto-submitted')).toBe('auto-generated');
    expect(ack.parsed.headers.get('x-auto-response-suppress')).toBe('All');
    expect(ack.parsed.text).toContain(`ticket #${ticketId}`);
    expect(ack.messageId).toMatch(/^[0-9a-f-]{36}\.[0-9a-f]{16}@desk\.test$/);

    await comment(handle.http, ticketId!, 'Please pull the paper tray out and in again.');
    const [, answer] = await receiver.waitFor(requester, 2);
    expect(answer.parsed.subject).toBe(`[#${ticketId}] Printer jams`);
    expect(answer.parsed.inReplyTo).toBe(`<${first}>`);
    expect(answer.parsed.text).toContain('agent.bob wrote on ticket');
    expect(answer.parsed.text).toContain('Please pull the paper tray out and in again.');

    // The requester answers the agent's mail from their mail client: it names that mail only.
    const reply = await receive(handle.http, {
      from: requester,
      to: `IT Support <${replyAddress(DESK, SECRET, ticketId!)}>`,
      subject: `Re: [#${ticketId}] Printer jams`,
      inReplyTo: answer.messageId,
      references: [first, answer.messageId],
      text: `That did it, thanks!\n\nOn Mon, 23 Nov 2026, IT Support wrote:\n> Please pull the paper tray out and in again.\n`,
    });
    expect(reply).toEqual({ outcome: 'commented', ticketId, reason: null });
    const comments = (await handle.http.get(`/api/v2/tickets/${ticketId}/comments`).expect(200)).body.items;
    expect(comments.map((c: { body: string }) => c.body)).toEqual(['Please pull the paper tray out and in again.', 'That did it, thanks!']);

    // Their own reply is not mailed back to them: the next mail they get is the resolution.
    await moveTo(handle.http, ticketId!, 'RESOLVED');
    const mails = await receiver.waitFor(requester, 3);
    expect(mails[2].parsed.text).toContain('is resolved');
    expect(mails).toHaveLength(3);
  });

  it('the participants get every public comment but their own; internal comments are never mailed; the desk’s addresses get nothing', async () => {
    const requester = newSender();
    const colleague = newSender();
    const created = await createTicket(
      handle.http,
      { requesterEmail: requester, ccEmails: [colleague, 'helpdesk@desk.test'], title: 'Café ☕ machine' },
      '/api/v2/tickets',
    );
    const id = created.body.id as number;
    const [ack] = await receiver.waitFor(requester);
    await receiver.waitFor(colleague);
    expect(ack.raw).toMatch(/^Subject: =\?UTF-8\?[BQ]\?/im);
    expect(ack.parsed.subject).toBe(`[#${id}] Café ☕ machine`);

    await comment(handle.http, id, 'Only for the desk: the vendor is slow.', 'INTERNAL');
    await comment(handle.http, id, '<script>alert(1)</script> & done', 'PUBLIC');
    const [, publicMail] = await receiver.waitFor(requester, 2);
    expect(publicMail.parsed.text).toContain('<script>alert(1)</script> & done');
    expect(publicMail.parsed.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; done');
    await receiver.waitFor(colleague, 2);

    await receive(handle.http, { from: colleague, to: replyAddress(DESK, SECRET, id), text: 'I see it too.' });
    // Mails claimed together go out over parallel connections, in no set order: the next comment waits for this one.
    await receiver.waitFor(requester, 3);
    await comment(handle.http, id, 'Fixed.');
    const toRequester = await receiver.waitFor(requester, 4);
    const toColleague = await receiver.waitFor(colleague, 3);
    expect(toRequester.map((mail) => mail.parsed.text ?? '')).toEqual([
      expect.stringContaining('opened ticket'),
      expect.stringContaining('& done'),
      expect.stringContaining('I see it too.'),
      expect.stringContaining('Fixed.'),
    ]);
    expect(toColleague.map((mail) => mail.parsed.text ?? '')).toEqual([
      expect.stringContaining('opened ticket'),
      expect.stringContaining('& done'),
      expect.stringContaining('Fixed.'),
    ]);
    expect(receiver.received.some((mail) => mail.raw.includes('vendor is slow'))).toBe(false);
    expect(receiver.to('helpdesk@desk.test')).toEqual([]);
    // The receiver has a mail before its answer reaches the sender, which records the outcome after it.
    const sent = async () => (await notificationsOf(handle.http, id)).filter((notification) => notification.status === 'sent').length;
    await waitUntil(async () => (await sent()) === 7, 10_000, 'every outcome recorded');
    expect(await notificationsOf(handle.http, id)).toHaveLength(7);
  });

  it('a merge tells each source’s people where their conversation went, never its internal note; their reply to it lands on the target', async () => {
    const [requester, targetRequester] = [newSender(), newSender()];
    const first = newMessageId();
    const { ticketId: source } = await receive(handle.http, { from: requester, messageId: first, subject: 'VPN down' });
    const target = (await createTicket(handle.http, { requesterEmail: targetRequester, title: 'VPN outage' }, '/api/v2/tickets')).body
      .id as number;
    await receiver.waitFor(requester);
    await receiver.waitFor(targetRequester);
    await handle.http
      .post(`/api/v2/tickets/${target}/merge`)
      .send({ sources: [source], comment: 'Known outage, ops paged' })
      .expect(200);
    const [, merged] = await receiver.waitFor(requester, 2);
    expect(merged.parsed.subject).toBe(`[#${source}] VPN down`);
    expect(merged.parsed.inReplyTo).toBe(`<${first}>`);
    expect(merged.parsed.text).toBe(
      `Ticket #${source} (VPN down) was merged into ticket #${target}, where the conversation goes on. A reply to this message is added there.`,
    );
    const reply = await receive(handle.http, {
      from: requester,
      subject: `Re: [#${source}] VPN down`,
      inReplyTo: merged.messageId,
      text: 'Thanks',
    });
    expect(reply).toEqual({ outcome: 'commented', ticketId: target, reason: null });
    // The target's requester hears of the new participant's comment, and never of the merge or its note.
    const toTarget = await receiver.waitFor(targetRequester, 2);
    expect(toTarget.map((mail) => mail.parsed.text ?? '')).toEqual([
      expect.stringContaining('opened ticket'),
      expect.stringContaining('Thanks'),
    ]);
    expect(receiver.received.some((mail) => mail.raw.includes('ops paged'))).toBe(false);
  });

  it('an auto-responder answering the desk gets nothing back: no ticket, no comment, no mail', async () => {
    const requester = newSender();
    const { ticketId } = await receive(handle.http, { from: requester });
    const [ack] = await receiver.waitFor(requester);
    const autoReply = await receive(handle.http, {
      from: requester,
      subject: `Out of office: [#${ticketId}] Printer on floor 3 jams`,
      inReplyTo: ack.messageId,
      headers: ['Auto-Submitted: auto-replied', 'X-Autoreply: yes'],
      text: 'I am away until Monday.',
    });
    expect(autoReply.outcome).toBe('ignored');
    // A public comment afterwards is the barrier: had the auto-reply caused a mail, it would have come before this one.
    await comment(handle.http, ticketId!, 'We will wait.');
    const mails = await receiver.waitFor(requester, 2);
    expect(mails.map((mail) => mail.parsed.text ?? '')).toEqual([
      expect.stringContaining('opened ticket'),
      expect.stringContaining('We will wait.'),
    ]);
  });

  it('a 5xx for an address fails that notification and says why', async () => {
    const gone = newSender('gone.test');
    receiver.refuse = (address) => address === gone;
    try {
      const id = (await createTicket(handle.http, { requesterEmail: gone }, '/api/v2/tickets')).body.id as number;
      await waitUntil(async () => (await notificationsOf(handle.http, id))[0]?.status === 'failed', 15_000, 'the notification to fail');
      const [failed] = await notificationsOf(handle.http, id);
      expect(failed).toMatchObject({ recipient: gone, eventType: 'CREATED', status: 'failed', attempts: 1, nextAttemptAt: null });
      expect(failed.lastAnswer).toMatch(/550/);
    } finally {
      receiver.refuse = () => false;
    }
  });

  it('while the SMTP server is down nothing is lost: the mail goes once it is back, once', async () => {
    await receiver.stop();
    const requester = newSender();
    let id: number;
    try {
      id = (await createTicket(handle.http, { requesterEmail: requester }, '/api/v2/tickets')).body.id as number;
      await waitUntil(async () => ((await notificationsOf(handle.http, id))[0]?.attempts ?? 0) >= 2, 15_000, 'two failed attempts');
      const [waiting] = await notificationsOf(handle.http, id);
      expect(waiting).toMatchObject({ status: 'pending', nextAttemptAt: expect.any(String) });
      expect(waiting.lastAnswer).toMatch(/ECONNREFUSED|connect/i);
      // The mail component says so, and the service stays UP: mail waits in its notifications meanwhile.
      const health = await handle.http.get('/actuator/health').expect(200);
      expect(health.body.status).toBe('UP');
      expect(health.body.components.mail).toEqual({ status: 'DOWN', details: { smtp: expect.stringMatching(/^DOWN: .*ECONNREFUSED/) } });
    } finally {
      await receiver.start();
    }
    const [mail] = await receiver.waitFor(requester);
    // A DOWN state is shown for a few seconds before the server is greeted again (mail.health.ts).
    await waitUntil(async () => (await handle.http.get('/actuator/health/mail')).body.status === 'UP', 10_000, 'mail UP again');
    expect((await handle.http.get('/actuator/health/mail').expect(200)).body).toEqual({ status: 'UP', details: { smtp: 'UP' } });
    await waitUntil(async () => (await notificationsOf(handle.http, id))[0]?.status === 'sent', 15_000, 'sent recorded');
    expect(receiver.to(requester).map((m) => m.messageId)).toEqual([mail.messageId]);
  });

  it('counts what came in and went out, and shows the backlogs (after the cases above)', async () => {
    const text = (await handle.http.get('/actuator/prometheus').expect(200)).text;
    const value = (name: string, outcome?: string) =>
      Number(new RegExp(`^${name}${outcome ? `\\{outcome="${outcome}"[^}]*\\}` : '(?:\\{[^}]*\\})?'} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('mail_inbound_messages_total', 'created')).toBeGreaterThanOrEqual(2);
    expect(value('mail_inbound_messages_total', 'commented')).toBeGreaterThanOrEqual(2);
    expect(value('mail_inbound_messages_total', 'ignored')).toBeGreaterThanOrEqual(1);
    expect(value('mail_outbound_messages_total', 'sent')).toBeGreaterThanOrEqual(10);
    expect(value('mail_outbound_messages_total', 'failed')).toBeGreaterThanOrEqual(1);
    expect(value('mail_outbound_messages_total', 'retrying')).toBeGreaterThanOrEqual(2);
    expect(value('mail_notifications_pending')).toBe(0);
    expect(value('mail_notifier_changes_behind')).toBeGreaterThanOrEqual(0);
  });
});
