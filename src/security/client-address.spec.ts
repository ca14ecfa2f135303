import { clientAddress } from './client-address.js';

describe('clientAddress', () => {
  it('is the connection peer when forwarded headers are ignored (the default)', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.7', 'none')).toBe('127.0.0.1');
  });

  it('takes the first address from the right that is not an internal proxy (native)', () => {
    expect(clientAddress('10.0.0.5', '198.51.100.9, 203.0.113.7, 10.0.0.2', 'native')).toBe('203.0.113.7');
    expect(clientAddress('::ffff:127.0.0.1', ['203.0.113.7', '192.168.1.1'], 'framework')).toBe('203.0.113.7');
  });

  it('ignores X-Forwarded-For from a peer that is not an internal proxy: anyone could send it', () => {
    expect(clientAddress('198.51.100.1', '203.0.113.7', 'native')).toBe('198.51.100.1');
  });

  it('falls back to the leftmost hop when every hop is internal, and to the peer without the header', () => {
    expect(clientAddress('10.0.0.5', '10.1.1.1, 10.0.0.2', 'native')).toBe('10.1.1.1');
    expect(clientAddress('10.0.0.5', undefined, 'native')).toBe('10.0.0.5');
  });
});
