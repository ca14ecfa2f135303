import { codePointLength, isEmail } from './spring-constraints.js';

describe('isEmail (Hibernate Validator @Email rules)', () => {
  it.each(['user@localhost', 'a.b+c@example.co.uk', '"quoted local"@example.com', 'user@[192.168.0.1]', 'ÜSER@exämple.de'])(
    'accepts %p',
    (address) => expect(isEmail(address)).toBe(true),
  );

  it.each([
    '',
    'plain',
    '@example.com',
    'user@',
    'us er@example.com',
    'user@exa mple.com',
    'a..b@example.com',
    'user@-example.com',
    `${'a'.repeat(65)}@x.com`,
  ])('rejects %p', (address) => expect(isEmail(address)).toBe(false));
});

describe('codePointLength', () => {
  it('counts an emoji as one character, as utf8mb4 columns do', () => {
    expect(codePointLength('😀a')).toBe(2);
  });
});
