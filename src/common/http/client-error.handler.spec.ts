import { requestLineAt } from './client-error.handler.js';

const packet = (text: string) => ({ rawPacket: Buffer.from(text, 'latin1'), bytesParsed: Buffer.byteLength(text, 'latin1') });

describe('requestLineAt (method and path of a request the HTTP parser refused)', () => {
  it('takes the last request line of the packet, also one that follows a body without a line break', () => {
    expect(requestLineAt(packet('GET /api/tickets?status=OPEN HTTP/1.1\r\nHost: x\r\n\r\n'))).toEqual(['GET', '/api/tickets']);
    const pipelined =
      'POST /api/tickets HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}PUT /api/v2/tickets/7 HTTP/1.1\r\nHost: x\r\nBad header\r\n';
    expect(requestLineAt(packet(pipelined))).toEqual(['PUT', '/api/v2/tickets/7']);
  });

  it('falls back to the start of the packet when no line has a version, and to nothing when that is no request', () => {
    expect(requestLineAt(packet(`GET /api/tickets/${'x'.repeat(100)}`))).toEqual(['GET', `/api/tickets/${'x'.repeat(100)}`]);
    expect(requestLineAt(packet('\u0000\u0001garbage'))).toEqual(['', '']);
    expect(requestLineAt({})).toEqual(['', '']);
  });

  it('reads 64 KiB a client chose in linear time: a long line of letters without a version, or of capitals', () => {
    // Measured in CPU time, which a loaded machine does not stretch: a backtracking expression took seconds here.
    const cpu = process.cpuUsage();
    expect(requestLineAt(packet(`GET /${'a'.repeat(64 * 1024)}`))).toEqual(['GET', `/${'a'.repeat(64 * 1024 - 5)}`]);
    expect(requestLineAt(packet(`POST /api/tickets HTTP/1.1\r\n\r\n${'A'.repeat(60_000)} /x`))).toEqual(['POST', '/api/tickets']);
    expect(requestLineAt(packet(`${'A'.repeat(60_000)} / HTTP/1.1`))).toEqual(['AAAAAAAAAAAAAAAAAAAA', '/']);
    const { user, system } = process.cpuUsage(cpu);
    expect((user + system) / 1000).toBeLessThan(250);
  });
});
