import fc from 'fast-check';
import { automaticMailReason, failsDmarc } from './automatic-mail.js';
import { subjectTicketId, taggedSubject, ticketTitle } from './subject.js';
import { threadOf } from './threading.js';
import { replyText } from './reply-text.js';

const headers = (entries: Record<string, string | string[]>) =>
  new Map(Object.entries(entries).map(([name, value]) => [name, Array.isArray(value) ? value : [value]]));

describe('automatic mail (RFC 3834) and bounces', () => {
  it('any Auto-Submitted other than "no" is automatic; "no" is a person', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z][a-z-]{0,20}$/), (value) => {
        const reason = automaticMailReason({ headers: headers({ 'auto-submitted': `${value}; owner-email="x@y"` }) });
        if (value === 'no') expect(reason).toBeNull();
        else expect(reason).toMatch(/^automatic: Auto-Submitted/);
      }),
    );
    expect(automaticMailReason({ headers: headers({ 'auto-submitted': 'No' }) })).toBeNull();
  });

  it.each([
    [{ 'x-autoreply': 'yes' }, /X-Autoreply/],
    [{ 'x-autorespond': 'Out of office' }, /X-Autorespond/],
    [{ precedence: 'Bulk' }, /bulk/],
    [{ precedence: 'junk' }, /junk/],
    [{ precedence: 'list' }, /list/],
    [{ precedence: 'auto_reply' }, /auto_reply/],
    [{ 'content-type': 'multipart/report; report-type=delivery-status; boundary="x"' }, /bounce/],
    [{ 'content-type': 'multipart/report; report-type="disposition-notification"' }, /bounce/],
    [{ 'return-path': '<>' }, /empty Return-Path/],
  ])('%j is automatic', (entries, reason) => {
    expect(automaticMailReason({ headers: headers(entries) })).toMatch(reason);
  });

  it('a person’s mail is not', () => {
    expect(
      automaticMailReason({ headers: headers({ precedence: 'first-class', 'return-path': '<anna@x.example>' }), from: 'anna@x.example' }),
    ).toBeNull();
    expect(automaticMailReason({ headers: headers({}), from: 'mailer-daemon@x.example' })).toMatch(/MAILER-DAEMON/);
  });

  it('believes a DMARC verdict only from the desk’s own MTA', () => {
    const verdict = headers({
      'authentication-results': ['other.example; dmarc=fail', 'mx.desk.example; spf=pass; dmarc=fail (p=reject)'],
    });
    expect(failsDmarc(verdict, 'mx.desk.example')).toBe(true);
    expect(failsDmarc(verdict, 'MX.DESK.EXAMPLE')).toBe(true);
    expect(failsDmarc(verdict, undefined)).toBe(false);
    expect(failsDmarc(headers({ 'authentication-results': 'mx.desk.example; dmarc=pass' }), 'mx.desk.example')).toBe(false);
    expect(failsDmarc(headers({ 'authentication-results': 'other.example; dmarc=fail' }), 'mx.desk.example')).toBe(false);
  });
});

describe('subjects', () => {
  const titles = fc.string({ minLength: 1, maxLength: 400 });

  it('a title is never longer than 255 characters, never blank, and cleaning it twice changes nothing', () => {
    fc.assert(
      fc.property(titles, (subject) => {
        const title = ticketTitle(subject);
        expect([...title].length).toBeLessThanOrEqual(255);
        expect(title.trim()).not.toBe('');
        expect(ticketTitle(title)).toBe(title);
      }),
    );
  });

  it('reply and forward prefixes and the desk’s tag come off, in any order and case', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('Re:', 'RE:', 'Fwd:', 'FW:', 'AW:', 'WG:', 'SV:', 'Antw:', 'Re[2]:', '[#17]'), { maxLength: 5 }),
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ]{0,40}$/),
        (prefixes, rest) => {
          expect(ticketTitle(`${prefixes.join(' ')} ${rest}`)).toBe(ticketTitle(rest));
        },
      ),
    );
    expect(ticketTitle('')).toBe('(no subject)');
    expect(ticketTitle('Re: ')).toBe('(no subject)');
    expect(ticketTitle('Reply all: re-imaging')).toBe('Reply all: re-imaging');
  });

  it('the desk’s tag is read back from the subjects it writes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999_999_999 }), fc.string(), (id, title) => {
        expect(subjectTicketId(`Re: ${taggedSubject(id, title)}`)).toBe(id);
      }),
    );
    expect(subjectTicketId('Order #12 [12]')).toBeUndefined();
  });
});

describe('threading', () => {
  const id = fc.option(fc.integer({ min: 1, max: 1e9 }), { nil: undefined });

  it('references win, then the reply address, then the subject tag from the ticket’s own people only', () => {
    fc.assert(
      fc.property(id, id, id, fc.boolean(), (referenced, replyAddress, tagged, belongs) => {
        const subjectTag = tagged === undefined ? undefined : { ticketId: tagged, senderBelongs: belongs };
        const thread = threadOf({ referenced, replyAddress, subjectTag });
        if (referenced !== undefined) expect(thread).toEqual({ ticketId: referenced, by: 'references' });
        else if (replyAddress !== undefined) expect(thread).toEqual({ ticketId: replyAddress, by: 'reply-address' });
        else if (tagged !== undefined && belongs) expect(thread).toEqual({ ticketId: tagged, by: 'subject' });
        else expect(thread).toBeNull();
      }),
    );
  });
});

describe('the new text of a reply', () => {
  it.each([
    ['Gmail', 'Works now.\n\nOn Mon, Nov 23, 2026 at 10:00 AM IT Support <support@desk.example> wrote:\n> Try again.\n', 'Works now.'],
    [
      'Apple Mail',
      'Yes.\n\nSent from my iPhone\n\n> On 23 Nov 2026, at 10:00, IT Support <support@desk.example> wrote:\n>\n> Try again.\n',
      'Yes.',
    ],
    [
      'Outlook',
      'Still broken.\r\n\r\n________________________________\r\nFrom: IT Support <support@desk.example>\r\nSent: Monday, November 23, 2026 10:00\r\nTo: Anna\r\nSubject: RE: [#1] Printer\r\n\r\nTry again.',
      'Still broken.',
    ],
    [
      'Outlook, rule-less',
      'Still broken.\n\nFrom: IT Support <support@desk.example>\nSent: Monday\nTo: Anna\n\nTry again.',
      'Still broken.',
    ],
    [
      'Outlook, German',
      'Geht nicht.\n\n-----Ursprüngliche Nachricht-----\nVon: IT Support\nGesendet: Montag\n\nBitte neu starten.',
      'Geht nicht.',
    ],
    ['a signature', 'Thanks!\n\n-- \nAnna Example\nACME Corp', 'Thanks!'],
    ['only quoted text', '> Try again.\n> Or not.\n', ''],
  ])('%s', (_client, text, expected) => {
    expect(replyText(text)).toBe(expected);
  });
});
