import fc from 'fast-check';
import { deskAddress, isDeskAddress, replyAddress, ticketOfReplyAddress } from './reply-address.js';

const desk = deskAddress('support@desk.example');
const ids = fc.integer({ min: 1, max: 999_999_999_999_999 });
const secrets = fc.string({ minLength: 16, maxLength: 64 });

describe('reply addresses', () => {
  it('name the ticket they were made for, whatever the case the mail system passes them on in', () => {
    fc.assert(
      fc.property(ids, secrets, fc.boolean(), (id, secret, upper) => {
        const address = replyAddress(desk, secret, id);
        expect(address).toMatch(/^support\+\d+\.[0-9a-f]{20}@desk\.example$/);
        expect(ticketOfReplyAddress([upper ? address.toUpperCase() : address], desk, secret)).toBe(id);
      }),
    );
  });

  it('name nothing once a character of the token is changed, or under another secret', () => {
    fc.assert(
      fc.property(ids, secrets, secrets, fc.nat(), fc.constantFrom(...'0123456789abcdef.+'), (id, secret, other, at, replacement) => {
        const address = replyAddress(desk, secret, id);
        const token = address.slice('support+'.length, address.indexOf('@'));
        const position = at % token.length;
        fc.pre(token[position] !== replacement);
        const altered = `support+${token.slice(0, position)}${replacement}${token.slice(position + 1)}@desk.example`;
        expect(ticketOfReplyAddress([altered], desk, secret)).toBeUndefined();
        fc.pre(other !== secret);
        expect(ticketOfReplyAddress([address], desk, other)).toBeUndefined();
      }),
    );
  });

  it('are found among other recipients, and only at the desk’s own domain', () => {
    const address = replyAddress(desk, 'a-secret-of-enough-length', 42);
    expect(ticketOfReplyAddress(['someone@else.example', address], desk, 'a-secret-of-enough-length')).toBe(42);
    expect(ticketOfReplyAddress([address.replace('desk.example', 'evil.example')], desk, 'a-secret-of-enough-length')).toBeUndefined();
    expect(ticketOfReplyAddress(['support+42@desk.example'], desk, 'a-secret-of-enough-length')).toBeUndefined();
  });

  it('and every + variant of a desk address are the desk’s own', () => {
    const own = [desk, deskAddress('helpdesk@desk.example')];
    expect(isDeskAddress('support@desk.example', own)).toBe(true);
    expect(isDeskAddress('Support+42.abc@DESK.example', own)).toBe(true);
    expect(isDeskAddress('helpdesk+x@desk.example', own)).toBe(true);
    expect(isDeskAddress('support@desk.example.evil', own)).toBe(false);
    expect(isDeskAddress('supporter@desk.example', own)).toBe(false);
  });
});
