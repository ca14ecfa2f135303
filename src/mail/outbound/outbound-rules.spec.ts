import fc from 'fast-check';
import type { SmtpConfig } from '../../config/mail-config.js';
import { afterFailure } from './mail-sender.js';
import { MailTemplates } from './mail-templates.js';
import { type LoggedChange, notificationKind, recipientsOf } from './notification-rules.js';

const address = fc.stringMatching(/^[a-e]{1,3}@(?:customer|desk)\.example$/);
const statuses = fc.constantFrom('OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED');
const changes: fc.Arbitrary<LoggedChange> = fc.oneof(
  fc.record({
    eventType: fc.constant('CREATED'),
    event: fc.record({ ticket: fc.record({ status: statuses }) }),
    context: fc.record({ causedBy: fc.option(address, { nil: undefined }) }, { requiredKeys: [] }),
  }),
  fc.record({
    eventType: fc.constant('UPDATED'),
    event: fc.record({ ticket: fc.record({ status: statuses }) }),
    context: fc.record(
      { causedBy: fc.option(address, { nil: undefined }), statusFrom: fc.option(statuses, { nil: undefined }) },
      { requiredKeys: [] },
    ),
  }),
  fc.record({
    eventType: fc.constant('COMMENT_ADDED'),
    event: fc.record({
      comment: fc.record({ visibility: fc.constantFrom('PUBLIC', 'INTERNAL'), author: fc.option(address, { nil: null }) }),
    }),
    context: fc.record({ causedBy: fc.option(address, { nil: undefined }) }, { requiredKeys: [] }),
  }),
  fc.record({
    eventType: fc.constant('MERGED'),
    event: fc.record({ ticketId: fc.constantFrom(7, 12), merge: fc.constant({ targetId: 7 }) }),
    context: fc.constant({}),
  }),
  fc.record({
    eventType: fc.constantFrom('DELETED', 'ATTACHMENT_ADDED', 'SLA_BREACHED'),
    event: fc.constant({}),
    context: fc.constant({}),
  }),
);
const isDesk = (candidate: string) => candidate.endsWith('@desk.example');

describe('who is mailed about a change', () => {
  it('never an internal comment, never another kind of change, a status change only into RESOLVED or CLOSED, a merge only to its sources', () => {
    fc.assert(
      fc.property(changes, (change) => {
        const kind = notificationKind(change);
        if (change.eventType === 'COMMENT_ADDED' && change.event.comment?.visibility === 'INTERNAL') expect(kind).toBeNull();
        if (!['CREATED', 'UPDATED', 'COMMENT_ADDED', 'MERGED'].includes(change.eventType)) expect(kind).toBeNull();
        // A merge is mailed to the people of each source, never to the target's.
        if (change.eventType === 'MERGED') expect(kind).toBe(change.event.ticketId === change.event.merge!.targetId ? null : 'merged');
        if (change.eventType === 'UPDATED' && kind !== null) {
          expect(change.context.statusFrom).not.toBe(change.event.ticket!.status);
          expect(kind).toBe(change.event.ticket!.status === 'RESOLVED' ? 'resolved' : 'closed');
        }
      }),
    );
  });

  it('only the ticket’s people, each once, never the desk, never whoever caused it (but the requester’s acknowledgement)', () => {
    fc.assert(
      fc.property(changes, address, fc.array(address, { maxLength: 5 }), (change, requester, participants) => {
        const kind = notificationKind(change);
        fc.pre(kind !== null);
        const recipients = recipientsOf(kind!, change, { requester, participants }, isDesk);
        expect(new Set(recipients).size).toBe(recipients.length);
        for (const recipient of recipients) {
          expect([requester, ...participants]).toContain(recipient);
          expect(isDesk(recipient)).toBe(false);
          const caused = recipient === change.context.causedBy || (kind === 'commented' && recipient === change.event.comment?.author);
          if (caused) expect(kind === 'created' && recipient === requester).toBe(true);
        }
        if (kind === 'created' && !isDesk(requester)) expect(recipients).toContain(requester);
        if (kind === 'created' && change.context.causedBy) expect(recipients.every((recipient) => recipient === requester)).toBe(true);
      }),
    );
  });
});

describe('templates', () => {
  it('escape every value in HTML and keep it as given in text', () => {
    const templates = new MailTemplates();
    fc.assert(
      fc.property(fc.string(), fc.string(), (body, title) => {
        const { text, html } = templates.render('commented', {
          'ticket.id': '7',
          'ticket.title': title,
          'ticket.status': 'OPEN',
          'ticket.description': '',
          'comment.body': body,
          'comment.author': 'agent',
          'merge.target': '',
        });
        expect(text).toContain(body);
        const values = html.replace(/<\/?(?:p|div|hr|br|b|blockquote)(?: [^>]*)?>/g, '');
        expect(values).not.toMatch(/[<>]/);
      }),
    );
  });
});

describe('a failed send', () => {
  const smtp: SmtpConfig = {
    url: 'smtp://x',
    timeoutMs: 1000,
    retryMaxDelayMs: 60_000,
    giveUpAfterMs: 3_600_000,
    pollIntervalMs: 100,
    leaseTtlMs: 10_000,
    concurrency: 5,
  };

  it('fails for good on a 5xx to its recipient or its data, and is tried again, ever later up to the longest wait, on anything else until it gives up', () => {
    const refusal = (responseCode: number, response: string, command: string) =>
      Object.assign(new Error('x'), { responseCode, response, command });
    for (const [code, response, command] of [
      [550, '550 5.1.1 unknown', 'RCPT TO'],
      [552, '552 5.2.2 mailbox full', 'DATA'],
      [550, '550 no such user', 'RCPT TO'],
    ] as const) {
      expect(afterFailure(refusal(code, response, command), 0, 0, smtp)).toEqual({ status: 'failed', answer: response });
    }
    // The desk's own setup: relaying or sending as the desk refused, a policy. Fixed, what waited goes out.
    for (const [code, response, command] of [
      [554, '554 5.7.1 Relay access denied', 'RCPT TO'],
      [554, '554 5.2.0 SendAsDenied', 'DATA'],
      [553, '553 sender rejected', 'MAIL FROM'],
    ] as const) {
      expect(afterFailure(refusal(code, response, command), 0, 0, smtp)).toMatchObject({ status: 'pending' });
    }
    // A refused login is the desk's own setup (a password changed): the notification waits for it to be fixed.
    expect(
      afterFailure(
        Object.assign(new Error('x'), { responseCode: 535, response: '535 5.7.8 bad credentials', command: 'AUTH PLAIN' }),
        0,
        0,
        smtp,
      ),
    ).toMatchObject({
      status: 'pending',
    });
    fc.assert(
      fc.property(fc.constantFrom(undefined, 421, 450, 451), fc.nat(40), fc.nat(3_599_999), (code, attempts, age) => {
        const end = afterFailure(Object.assign(new Error('connect ECONNREFUSED'), { responseCode: code }), attempts, age, smtp);
        expect(end).toMatchObject({ status: 'pending', retryInMs: Math.min(1000 * 2 ** attempts, 60_000) });
      }),
    );
    expect(afterFailure(new Error('connect ECONNREFUSED'), 3, 3_600_000, smtp)).toMatchObject({ status: 'failed' });
  });
});
