import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from '../support/test-app.js';
import { DovecotServer } from '../support/dovecot-server.js';
import { SmtpReceiver } from '../support/smtp-receiver.js';
import { newMessageId, newSender, rawMail } from '../support/raw-mail.js';
import { waitUntil } from '../support/waits.js';
import { connectToDatabase } from '../support/database.js';
import { InboundMailService, type MailboxFence } from '../../src/mail/inbound/inbound-mail.service.js';
import { MailboxLeaseLost, MailboxLeasesRepository } from '../../src/mail/inbound/mailbox-leases.repository.js';

const dovecot = await DovecotServer.start();
const receiver = await SmtpReceiver.start();

const ENV = {
  MAIL_IMAP_URL: dovecot.url,
  MAIL_POLL_INTERVAL_MS: '60000',
  MAIL_SMTP_URL: receiver.url,
  MAIL_FROM: 'IT Support <support@desk.test>',
  MAIL_REPLY_SECRET: 'a-reply-secret-for-the-tests-only',
  MAIL_SEND_POLL_INTERVAL_MS: '100',
  MAIL_MAX_MESSAGE_SIZE: String(2 * 1024 * 1024),
};

afterAll(async () => {
  await receiver.stop();
  await dovecot.stop();
});

async function ticketsOf(http: ReturnType<typeof request>, requester: string): Promise<Array<Record<string, any>>> {
  return (await http.get(`/api/v2/tickets?requesterEmail=${encodeURIComponent(requester)}&limit=100`).expect(200)).body.items;
}

/** Waits until the mailbox's INBOX is empty and its processed and failed folders hold these many messages. */
async function untilMoved(processed: number, failed = 0, timeoutMs = 20_000): Promise<void> {
  await waitUntil(
    async () => {
      const folders = await dovecot.folders();
      return (
        folders.get('INBOX')?.messages === 0 &&
        (folders.get('Processed')?.messages ?? 0) === processed &&
        (folders.get('Failed')?.messages ?? 0) === failed
      );
    },
    timeoutMs,
    `${processed} processed and ${failed} failed messages`,
  );
}

describe('A mailbox over IMAP (Dovecot): mail becomes tickets and comments, each message once', () => {
  let app: INestApplication | undefined;
  let http: ReturnType<typeof request>;
  let processed = 0;
  let failed = 0;

  beforeAll(async () => {
    app = await createTestApp({ env: ENV });
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
  });

  it('a mail appended to the inbox becomes a ticket, is moved to Processed, and its acknowledgement arrives; the reply to it becomes a comment', async () => {
    const requester = newSender();
    const first = newMessageId();
    await dovecot.append([rawMail({ from: `Anna <${requester}>`, messageId: first, subject: 'Laptop will not boot' })]);
    await untilMoved((processed += 1), failed);
    const [ticket] = await ticketsOf(http, requester);
    expect(ticket).toMatchObject({ title: 'Laptop will not boot', requesterEmail: requester, status: 'OPEN' });
    const folders = await dovecot.folders();
    expect(folders.get('Processed')).toEqual({ messages: processed, unseen: 0 });

    const [ack] = await receiver.waitFor(requester);
    expect(ack.parsed.subject).toBe(`[#${ticket.id}] Laptop will not boot`);
    expect((await http.get('/actuator/health/mail').expect(200)).body).toEqual({ status: 'UP', details: { imap: 'UP', smtp: 'UP' } });
    expect(ack.parsed.inReplyTo).toBe(`<${first}>`);

    await dovecot.append([
      rawMail({
        from: requester,
        subject: `Re: [#${ticket.id}] Laptop will not boot`,
        inReplyTo: ack.messageId,
        references: [first, ack.messageId],
        text: `It shows a blinking cursor.\n\n-- \nAnna\n\nOn Mon, 23 Nov 2026, IT Support wrote:\n> We have received your request\n`,
      }),
    ]);
    await untilMoved((processed += 1), failed);
    const comments = (await http.get(`/api/v2/tickets/${ticket.id}/comments`).expect(200)).body.items;
    expect(comments).toEqual([expect.objectContaining({ body: 'It shows a blinking cursor.', author: requester, visibility: 'PUBLIC' })]);
  });

  it('the same message appended twice makes one ticket; both copies are moved', async () => {
    const requester = newSender();
    const message = rawMail({ from: requester, subject: 'Appended twice' });
    await dovecot.append([message, message]);
    await untilMoved((processed += 2), failed);
    expect(await ticketsOf(http, requester)).toHaveLength(1);
  });

  it('a message someone has already opened (\\Seen) in the mailbox is handled too', async () => {
    const requester = newSender();
    const client = await dovecot.client();
    try {
      await client.append('INBOX', rawMail({ from: requester, subject: 'Read in Outlook first' }), ['\\Seen']);
    } finally {
      await client.logout();
    }
    await untilMoved((processed += 1), failed);
    expect(await ticketsOf(http, requester)).toHaveLength(1);
  });

  it('an auto-reply is handled (moved to Processed) but makes nothing and gets nothing', async () => {
    const requester = newSender();
    await dovecot.append([rawMail({ from: requester, headers: ['Auto-Submitted: auto-replied'], subject: 'Automatic reply: away' })]);
    await untilMoved((processed += 1), failed);
    expect(await ticketsOf(http, requester)).toEqual([]);
    // A mail to the same person made afterwards is the barrier: an answer to the auto-reply would have come first.
    await dovecot.append([rawMail({ from: requester, subject: 'A real one' })]);
    await untilMoved((processed += 1), failed);
    const mails = await receiver.waitFor(requester);
    expect(mails).toHaveLength(1);
    expect(mails[0].parsed.subject).toMatch(/A real one$/);
  });

  it('a message that cannot be handled goes to Failed, once, and the rest go on', async () => {
    const requester = newSender();
    const huge = rawMail({
      from: newSender(),
      attachments: [{ filename: 'big.bin', contentType: 'application/octet-stream', content: Buffer.alloc(3 * 1024 * 1024) }],
    });
    await dovecot.append([huge, rawMail({ from: requester, subject: 'After the big one' })]);
    await untilMoved((processed += 1), (failed += 1));
    expect(await ticketsOf(http, requester)).toHaveLength(1);
  });

  it('two replicas reading the mailbox at once handle each message once; when one stops, the other takes over', async () => {
    // The second replica polls often: it reads the mailbox only once the lease is free, and no IDLE tells it when.
    const second = await createTestApp({ env: { ...ENV, MAIL_POLL_INTERVAL_MS: '300' } });
    try {
      const senders = Array.from({ length: 30 }, () => newSender());
      await dovecot.append(senders.map((from, i) => rawMail({ from, subject: `Replica test ${i}` })));
      await untilMoved((processed += 30), failed, 30_000);
      const counts = await Promise.all(senders.map(async (from) => (await ticketsOf(http, from)).length));
      expect(counts).toEqual(senders.map(() => 1));

      await app!.close();
      app = undefined;
      const later = Array.from({ length: 5 }, () => newSender());
      await dovecot.append(later.map((from) => rawMail({ from, subject: 'After the first replica stopped' })));
      await untilMoved((processed += 5), failed);
      const secondHttp = request(second.getHttpServer());
      expect(await Promise.all(later.map(async (from) => (await ticketsOf(secondHttp, from)).length))).toEqual([1, 1, 1, 1, 1]);
    } finally {
      await second.close();
    }
  });
});

describe('The mailbox lease fences what a reader records', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('a reader whose lease went to another replica records nothing of the message it was handling', async () => {
    const leases = app.get(MailboxLeasesRepository);
    const inbound = app.get(InboundMailService);
    const mailbox = `imap://fence-${newSender()}/INBOX`;
    const epoch = await leases.claim(mailbox, 'replica-a', 60_000);
    expect(epoch).toBeDefined();
    const fenceOfA = (transaction: Parameters<MailboxFence>[0]) => leases.fence(transaction, mailbox, 'replica-a', epoch!, 60_000);

    const requester = newSender();
    expect((await inbound.receive(rawMail({ from: requester, subject: 'While A holds the lease' }), fenceOfA)).outcome).toBe('created');

    // A stalls past its lease; B takes the mailbox over (a new epoch), and A, waking up, goes on with its message.
    const db = await connectToDatabase();
    try {
      await db.query('UPDATE mailbox_leases SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE mailbox = ?', [mailbox]);
    } finally {
      await db.end();
    }
    expect(await leases.claim(mailbox, 'replica-b', 60_000)).toBe(epoch! + 1);
    const late = newSender();
    await expect(inbound.receive(rawMail({ from: late, subject: 'After A lost the lease' }), fenceOfA)).rejects.toBeInstanceOf(
      MailboxLeaseLost,
    );
    await expect(inbound.receive(rawMail({ from: late, headers: ['Auto-Submitted: auto-replied'] }), fenceOfA)).rejects.toBeInstanceOf(
      MailboxLeaseLost,
    );
    const http = request(app.getHttpServer());
    expect(await ticketsOf(http, requester)).toHaveLength(1);
    expect(await ticketsOf(http, late)).toEqual([]);
  });
});
