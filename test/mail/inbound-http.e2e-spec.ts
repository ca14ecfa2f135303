import { randomBytes } from 'node:crypto';
import type request from 'supertest';
import { useTestApp } from '../support/test-app.js';
import { createTicket } from '../support/ticket-factory.js';
import { newMessageId, newSender, rawMail, type RawMailOptions } from '../support/raw-mail.js';
import { expectProblem } from '../support/problem-json.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { download } from '../support/attachment-uploads.js';
import { deskAddress, replyAddress } from '../../src/mail/reply-address.js';

const SECRET = 'a-reply-secret-for-the-tests-only';
const DESK = deskAddress('support@desk.test');
const ENV = {
  MAIL_FROM: 'IT Support <support@desk.test>',
  MAIL_DESK_ADDRESSES: 'helpdesk@desk.test',
  MAIL_REPLY_SECRET: SECRET,
  MAIL_TRUSTED_AUTHSERV_ID: 'mx.desk.test',
  MAIL_SENDER_LIMIT_PER_HOUR: '5',
  MAIL_MAX_MESSAGE_SIZE: String(40 * 1024 * 1024),
  // Below the 30 MB message's parts, so that it shows the limit without writing tens of megabytes.
  ATTACHMENTS_MAX_FILE_SIZE: String(4 * 1024 * 1024),
};

type Http = ReturnType<typeof request>;

function post(http: Http, raw: Buffer) {
  return http.post('/api/v2/inbound-email').set('Content-Type', 'message/rfc822').send(raw).expect(200);
}

async function receive(http: Http, options: RawMailOptions): Promise<{ outcome: string; ticketId: number | null; reason: string | null }> {
  return (await post(http, rawMail(options))).body;
}

async function commentsOf(http: Http, ticketId: number): Promise<Array<Record<string, any>>> {
  return (await http.get(`/api/v2/tickets/${ticketId}/comments?limit=100`).expect(200)).body.items;
}

async function attachmentsOf(http: Http, ticketId: number): Promise<Array<Record<string, any>>> {
  return (await http.get(`/api/v2/tickets/${ticketId}/attachments?limit=100`).expect(200)).body.items;
}

async function ticketCount(http: Http, requester: string): Promise<number> {
  const listed = await http.get(`/api/v2/tickets?requesterEmail=${encodeURIComponent(requester)}&limit=100`).expect(200);
  return listed.body.items.length;
}

describe('Inbound email over HTTP: one rule set for every message', () => {
  const handle = useTestApp({ env: ENV });

  it('makes a new ticket of a new message: title, text, requester, participants, the message itself attached', async () => {
    const from = newSender();
    const colleague = newSender();
    const raw = rawMail({
      from: `Anna Example <${from.toUpperCase()}>`,
      to: 'IT Support <support@desk.test>',
      cc: `${colleague}, helpdesk@desk.test, Support <support+anything@desk.test>`,
      subject: 'Fwd: RE: AW: Printer on floor 3 jams',
      text: 'The printer jams on every page.\n\nAnna',
      attachments: [{ filename: 'photo.png', contentType: 'image/png', content: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex') }],
    });
    const result = (await post(handle.http, raw)).body;
    expect(result).toEqual({ outcome: 'created', ticketId: expect.any(Number), reason: null });
    const ticket = (await handle.http.get(`/api/v2/tickets/${result.ticketId}`).expect(200)).body;
    expect(ticket).toMatchObject({
      title: 'Printer on floor 3 jams',
      description: 'The printer jams on every page.\n\nAnna',
      status: 'OPEN',
      priority: 'MEDIUM',
      requesterEmail: from,
      assignedTo: null,
      ccEmails: [colleague],
    });
    const files = await attachmentsOf(handle.http, result.ticketId);
    expect(files.map((file) => file.filename).sort()).toEqual(['message.eml', 'photo.png']);
    const eml = files.find((file) => file.filename === 'message.eml')!;
    const stored = await download(handle.http, `/api/v2/tickets/${result.ticketId}/attachments/${eml.id}/content`);
    expect(Buffer.compare(stored.bytes, raw)).toBe(0);

    const again = (await post(handle.http, raw)).body;
    expect(again).toEqual({ outcome: 'duplicate', ticketId: result.ticketId, reason: null });
    expect(await ticketCount(handle.http, from)).toBe(1);
  });

  it('the same message handed in many times at once makes one ticket', async () => {
    const from = newSender();
    const raw = rawMail({ from, subject: 'Sent by a retrying MTA' });
    const results = await Promise.all(Array.from({ length: 8 }, () => post(handle.http, raw).then((response) => response.body)));
    const created = results.filter((result) => result.outcome === 'created');
    expect(created).toHaveLength(1);
    expect(results.filter((result) => result.outcome === 'duplicate')).toHaveLength(7);
    expect(new Set(results.map((result) => result.ticketId))).toEqual(new Set([created[0].ticketId]));
    expect(await ticketCount(handle.http, from)).toBe(1);
  });

  describe('a reply', () => {
    let requester: string;
    let ticketId: number;
    let firstMessage: string;

    beforeEach(async () => {
      requester = newSender();
      firstMessage = newMessageId();
      ticketId = (await receive(handle.http, { from: requester, messageId: firstMessage, subject: 'VPN drops' })).ticketId!;
    });

    const quoted = (text: string) =>
      `${text}\n\nOn Mon, Nov 23, 2026 at 10:00 AM IT Support <support@desk.test> wrote:\n> Have you tried turning it off and on again?\n> \n> IT Support\n`;

    it('through In-Reply-To alone becomes a public comment by the sender, holding only the new text', async () => {
      const result = await receive(handle.http, {
        from: requester,
        subject: 'Re: VPN drops',
        inReplyTo: firstMessage,
        text: quoted('Yes, twice. It still drops.'),
      });
      expect(result).toEqual({ outcome: 'commented', ticketId, reason: null });
      const [comment] = await commentsOf(handle.http, ticketId);
      expect(comment).toMatchObject({ body: 'Yes, twice. It still drops.', author: requester, visibility: 'PUBLIC' });
      expect(comment.attachmentIds).toHaveLength(1);
    });

    it('through References naming a message of the ticket', async () => {
      const result = await receive(handle.http, {
        from: newSender(),
        subject: 'Re: VPN drops',
        references: [newMessageId(), firstMessage, newMessageId()],
        text: 'Same here.',
      });
      expect(result).toEqual({ outcome: 'commented', ticketId, reason: null });
    });

    it('through the signed reply address, with any subject', async () => {
      const result = await receive(handle.http, {
        from: requester,
        to: `IT Support <${replyAddress(DESK, SECRET, ticketId)}>`,
        subject: 'something else entirely',
        text: 'Through the reply address.',
      });
      expect(result).toEqual({ outcome: 'commented', ticketId, reason: null });
    });

    it('through the subject tag, from the ticket’s requester only', async () => {
      const tagged = { subject: `Re: [#${ticketId}] VPN drops`, text: 'Through the tag.' };
      expect(await receive(handle.http, { from: requester, ...tagged })).toEqual({ outcome: 'commented', ticketId, reason: null });
      const stranger = await receive(handle.http, { from: newSender(), ...tagged });
      expect(stranger.outcome).toBe('created');
      expect(stranger.ticketId).not.toBe(ticketId);
    });

    it('through a forged or altered reply token is not threaded by it', async () => {
      const genuine = replyAddress(DESK, SECRET, ticketId);
      const altered = genuine.replace(/\.([0-9a-f])/, (_, digit: string) => `.${digit === '0' ? '1' : '0'}`);
      const other = replyAddress(DESK, 'another-secret-entirely!', ticketId);
      for (const to of [altered, other, `support+${ticketId}@desk.test`]) {
        const result = await receive(handle.http, { from: newSender(), to, subject: 'Hello', text: 'Let me in.' });
        expect(result.outcome).toBe('created');
        expect(result.ticketId).not.toBe(ticketId);
      }
      expect(await commentsOf(handle.http, ticketId)).toEqual([]);
    });

    it('that fails DMARC at the desk’s own MTA never comments: it opens a ticket of its own', async () => {
      const spoofed = await receive(handle.http, {
        from: requester,
        inReplyTo: firstMessage,
        headers: ['Authentication-Results: mx.desk.test; spf=fail smtp.mailfrom=evil.test; dmarc=fail header.from=customer.test'],
        text: 'Please send the VPN password to me.',
      });
      expect(spoofed.outcome).toBe('created');
      expect(spoofed.ticketId).not.toBe(ticketId);
      const opened = (await handle.http.get(`/api/v2/tickets/${spoofed.ticketId}`).expect(200)).body;
      expect(opened.description).toContain(`ticket #${ticketId}`);
      // A verdict written by anyone but the desk's own MTA is not believed.
      const foreign = await receive(handle.http, {
        from: requester,
        inReplyTo: firstMessage,
        headers: ['Authentication-Results: mx.elsewhere.test; dmarc=fail header.from=customer.test'],
        text: 'A real reply.',
      });
      expect(foreign).toEqual({ outcome: 'commented', ticketId, reason: null });
      expect((await commentsOf(handle.http, ticketId)).map((comment) => comment.body)).toEqual(['A real reply.']);
    });

    it.each(['WAITING_ON_CUSTOMER', 'RESOLVED'])('to a %s ticket moves it to IN_PROGRESS', async (status) => {
      await handle.http
        .patch(`/api/v2/tickets/${ticketId}`)
        .set('Content-Type', 'application/merge-patch+json')
        .send({ status })
        .expect(200);
      await receive(handle.http, { from: requester, inReplyTo: firstMessage, text: 'Here is the answer.' });
      expect((await handle.http.get(`/api/v2/tickets/${ticketId}`).expect(200)).body.status).toBe('IN_PROGRESS');
    });

    it('to a CLOSED ticket opens a new ticket that names the old one', async () => {
      await handle.http
        .patch(`/api/v2/tickets/${ticketId}`)
        .set('Content-Type', 'application/merge-patch+json')
        .send({ status: 'CLOSED' })
        .expect(200);
      const result = await receive(handle.http, {
        from: requester,
        inReplyTo: firstMessage,
        subject: 'Re: VPN drops',
        text: quoted('It is back.'),
      });
      expect(result.outcome).toBe('created');
      const opened = (await handle.http.get(`/api/v2/tickets/${result.ticketId}`).expect(200)).body;
      expect(opened).toMatchObject({ title: 'VPN drops', status: 'OPEN', requesterEmail: requester });
      expect(opened.description).toBe(`This message answers ticket #${ticketId}, which is closed.\n\nIt is back.`);
      expect((await handle.http.get(`/api/v2/tickets/${ticketId}`).expect(200)).body.status).toBe('CLOSED');
    });
  });

  describe('never a ticket or a comment from', () => {
    const cases: Array<[string, Partial<RawMailOptions>, RegExp]> = [
      ['an RFC 3834 auto-reply', { headers: ['Auto-Submitted: auto-replied'] }, /Auto-Submitted: auto-replied/],
      ['X-Autoreply', { headers: ['X-Autoreply: yes'] }, /X-Autoreply/],
      ['X-Autorespond', { headers: ['X-Autorespond: Out of office'] }, /X-Autorespond/],
      ['Precedence: bulk', { headers: ['Precedence: bulk'] }, /Precedence: bulk/],
      ['Precedence: auto_reply', { headers: ['Precedence: auto_reply'] }, /Precedence: auto_reply/],
      ['an empty Return-Path', { headers: ['Return-Path: <>'] }, /empty Return-Path/],
      ['MAILER-DAEMON', { from: 'Mail Delivery System <MAILER-DAEMON@mx.customer.test>' }, /MAILER-DAEMON/],
      ['the desk itself', { from: 'IT Support <support@desk.test>' }, /own address/],
      ['another of the desk’s addresses', { from: 'helpdesk@desk.test' }, /own address/],
    ];
    it.each(cases)('%s', async (_label, options, reason) => {
      const from = options.from ?? newSender();
      const requester = newSender();
      const ticketId = (await receive(handle.http, { from: requester })).ticketId!;
      // Threaded onto a ticket as well, so that neither a ticket nor a comment may come of it.
      const result = await receive(handle.http, { ...options, from, to: replyAddress(DESK, SECRET, ticketId) });
      expect(result).toEqual({ outcome: 'ignored', ticketId: null, reason: expect.stringMatching(reason) });
      expect(await commentsOf(handle.http, ticketId)).toEqual([]);
    });

    it('a delivery-status report (a bounce)', async () => {
      const raw = Buffer.from(
        [
          'From: Mail Delivery Subsystem <postmaster@mx.customer.test>',
          'To: support@desk.test',
          'Subject: Undelivered Mail Returned to Sender',
          `Message-ID: <${newMessageId()}>`,
          'MIME-Version: 1.0',
          'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
          '',
          '--b',
          'Content-Type: text/plain',
          '',
          'The mail could not be delivered.',
          '--b',
          'Content-Type: message/delivery-status',
          '',
          'Reporting-MTA: dns; mx.customer.test',
          '',
          'Final-Recipient: rfc822; nobody@customer.test',
          'Action: failed',
          'Status: 5.1.1',
          '--b--',
          '',
        ].join('\r\n'),
      );
      expect((await post(handle.http, raw)).body).toEqual({
        outcome: 'ignored',
        ticketId: null,
        reason: expect.stringMatching(/delivery-status/),
      });
      expect(await ticketCount(handle.http, 'postmaster@mx.customer.test')).toBe(0);
    });

    it('a sender past MAIL_SENDER_LIMIT_PER_HOUR', async () => {
      const from = newSender();
      for (let i = 0; i < 5; i++) expect((await receive(handle.http, { from, subject: `Issue ${i}` })).outcome).toBe('created');
      const sixth = await receive(handle.http, { from, subject: 'Issue 6' });
      expect(sixth).toEqual({ outcome: 'ignored', ticketId: null, reason: expect.stringMatching(/MAIL_SENDER_LIMIT_PER_HOUR/) });
      expect(await ticketCount(handle.http, from)).toBe(5);
    });
  });

  it('a copy ignored first (a mailing list’s) gives way to the copy sent to the desk itself', async () => {
    const from = newSender();
    const messageId = newMessageId();
    const listCopy = await receive(handle.http, { from, messageId, headers: ['Precedence: list', 'List-Id: <staff.customer.test>'] });
    expect(listCopy).toEqual({ outcome: 'ignored', ticketId: null, reason: expect.stringMatching(/Precedence: list/) });
    const direct = await receive(handle.http, { from, messageId });
    expect(direct).toEqual({ outcome: 'created', ticketId: expect.any(Number), reason: null });
    expect(await receive(handle.http, { from, messageId, headers: ['Precedence: list'] })).toEqual({
      outcome: 'duplicate',
      ticketId: direct.ticketId,
      reason: null,
    });
  });

  describe('bad input gets a clear outcome', () => {
    it('references with 8-bit or overlong Message-IDs are passed over, not a failure', async () => {
      const raw = Buffer.concat([
        Buffer.from(
          `From: ${newSender()}\r\nTo: support@desk.test\r\nSubject: odd references\r\nMessage-ID: <${newMessageId()}>\r\nIn-Reply-To: <caf`,
        ),
        Buffer.from([0xe9]),
        Buffer.from(`@x.test>\r\nReferences: <${'a'.repeat(300)}@x.test> <ünïcode@x.test>\r\n\r\nHello\r\n`),
      ]);
      expect((await post(handle.http, raw)).body.outcome).toBe('created');
    });

    it('a message without a Message-ID: its hash stands in, so the same bytes twice make one ticket', async () => {
      const raw = rawMail({ from: newSender(), messageId: null });
      const first = (await post(handle.http, raw)).body;
      expect(first.outcome).toBe('created');
      expect((await post(handle.http, raw)).body).toEqual({ outcome: 'duplicate', ticketId: first.ticketId, reason: null });
    });

    it('bytes that are no message at all', async () => {
      const result = (await post(handle.http, randomBytes(4096))).body;
      expect(result).toEqual({ outcome: 'ignored', ticketId: null, reason: expect.any(String) });
    });

    it('ISO-8859-1, an unknown charset and raw 8-bit headers', async () => {
      const from = newSender();
      const latin1 = Buffer.concat([
        Buffer.from(`From: =?ISO-8859-1?Q?J=FCrgen?= <${from}>\r\nTo: support@desk.test\r\nSubject: =?ISO-8859-1?Q?Drucker_st=F6rt?=\r\n`),
        Buffer.from(
          `Message-ID: <${newMessageId()}>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n`,
        ),
        Buffer.from('Der Drucker im Büro druckt nicht.\r\n', 'latin1'),
      ]);
      const latin = (await post(handle.http, latin1)).body;
      const ticket = (await handle.http.get(`/api/v2/tickets/${latin.ticketId}`).expect(200)).body;
      expect(ticket).toMatchObject({ title: 'Drucker stört', description: 'Der Drucker im Büro druckt nicht.' });

      const unknown = rawMail({ from: newSender(), text: 'plain words' }).toString().replace('charset=utf-8', 'charset=x-no-such-charset');
      expect((await post(handle.http, Buffer.from(unknown))).body.outcome).toBe('created');

      const eightBit = Buffer.concat([
        Buffer.from(`From: ${newSender()}\r\nTo: support@desk.test\r\nSubject: Café `),
        Buffer.from([0xe9, 0xff]),
        Buffer.from('\r\n\r\nbody\r\n'),
      ]);
      expect((await post(handle.http, eightBit)).body.outcome).toBe('created');
    });

    it('an HTML-only message: its text becomes the description', async () => {
      const result = await receive(handle.http, { from: newSender(), html: '<p>The <b>screen</b> is black.</p><script>alert(1)</script>' });
      const ticket = (await handle.http.get(`/api/v2/tickets/${result.ticketId}`).expect(200)).body;
      expect(ticket.description).toContain('The SCREEN is black.'.replace('SCREEN', 'screen'));
      expect(ticket.description).not.toContain('<');
    });

    it('a 30 MB message: a ticket, with what passes the attachment limits and an internal comment naming the rest', async () => {
      const big = Buffer.alloc(22 * 1024 * 1024, 7);
      const raw = rawMail({
        from: newSender(),
        attachments: [
          { filename: 'dump.bin', contentType: 'application/octet-stream', content: big },
          { filename: 'small.txt', contentType: 'text/plain', content: Buffer.from('small') },
        ],
      });
      expect(raw.length).toBeGreaterThan(30_000_000);
      const result = (await post(handle.http, raw)).body;
      expect(result.outcome).toBe('created');
      expect((await attachmentsOf(handle.http, result.ticketId!)).map((file) => file.filename)).toEqual(['small.txt']);
      const [note] = await commentsOf(handle.http, result.ticketId!);
      expect(note.visibility).toBe('INTERNAL');
      expect(note.body).toMatch(
        /^2 of the mail's files were left out:\n- message\.eml \(\d+ bytes\): Attachment is larger than 4194304 bytes.*\n- dump\.bin \(23068672 bytes\): Attachment is larger than/,
      );
    });

    it('a message with 500 parts: the parts past the attachment limit are counted in an internal comment', async () => {
      const attachments = Array.from({ length: 500 }, (_, i) => ({
        filename: `part-${i}.txt`,
        contentType: 'text/plain',
        content: Buffer.from(`part ${i}`),
      }));
      const result = await receive(handle.http, { from: newSender(), attachments });
      expect(result.outcome).toBe('created');
      const stored = await attachmentsOf(handle.http, result.ticketId!);
      const [note] = await commentsOf(handle.http, result.ticketId!);
      expect(stored.length).toBeGreaterThan(0);
      const leftOut = Number(/^(\d+) of the mail's files were left out/.exec(note.body)![1]);
      expect(leftOut + stored.length).toBe(501);
      expect(note.body).toContain(`and ${leftOut - 50} more`);
    });

    it('answers 415 for a body that is not message/rfc822 and 413 past MAIL_MAX_MESSAGE_SIZE', async () => {
      expectProblem(asHttpResponse(await handle.http.post('/api/v2/inbound-email').set('Content-Type', 'text/plain').send('hello')), 415);
      const tooBig = Buffer.alloc(40 * 1024 * 1024 + 1, 65);
      expectProblem(
        asHttpResponse(await handle.http.post('/api/v2/inbound-email').set('Content-Type', 'message/rfc822').send(tooBig)),
        413,
      );
    });
  });

  it('a ticket made through the API threads replies by its subject tag from its requester', async () => {
    const requester = newSender();
    const id = (await createTicket(handle.http, { requesterEmail: requester }, '/api/v2/tickets')).body.id;
    expect(await receive(handle.http, { from: requester, subject: `Re: [#${id}] VPN` })).toEqual({
      outcome: 'commented',
      ticketId: id,
      reason: null,
    });
  });
});
