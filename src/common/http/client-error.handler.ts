import { maxHeaderSize, type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorPayload } from '../errors/error-response.js';

/** Node links a socket to the response it is writing; its default clientError handler checks the same. */
type HttpSocket = Socket & { _httpMessage?: { headersSent: boolean; req?: { method?: string; url?: string } } | null };

/** Node's HTTP parser errors that a client causes, with the status Node itself would answer; any other is a 400. */
const ANSWER_BY_CODE: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: `Request header fields are larger than ${maxHeaderSize} bytes` },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: 'Chunk extensions are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'Request not received in time' },
};
const MALFORMED = { status: 400, message: 'Malformed HTTP request' };

/**
 * Requests that never reach Express (unparseable, headers over 16 KiB, too slow) are answered by Node with a
 * bare status line; this answers them in the error shape of their path like every other error, then closes.
 */
export function answerClientErrorsAsJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: HttpSocket) => {
    // As Node's own handler does: never write into a response that has already started on this connection.
    if (socket.writable && !socket._httpMessage?.headersSent && error.code !== 'ECONNRESET') {
      const { status, message } = ANSWER_BY_CODE[error.code ?? ''] ?? MALFORMED;
      const { method, path } = requestLine(error.rawPacket, socket._httpMessage?.req);
      const payload = errorPayload(path, status, message);
      const body = JSON.stringify(payload.body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${payload.contentType}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${method === 'HEAD' ? '' : body}`,
      );
    }
    socket.destroy();
  });
}

/**
 * Method and path of the request line as far as it arrived (even when the line itself was too long). An error in
 * the body (chunk extensions over the limit) comes after the head was parsed, and its packet may hold only body
 * bytes: then the request Node already made of the head says them.
 */
function requestLine(rawPacket?: Buffer, parsed?: { method?: string; url?: string }): { method: string; path: string } {
  const start = rawPacket?.subarray(0, 64 * 1024).toString('latin1') ?? '';
  const [, method = '', path = ''] = /^([A-Z]+) (\/[^\s?]*)/.exec(start) ?? [];
  if (path === '' && parsed?.url) return { method: parsed.method ?? '', path: parsed.url.split('?')[0] };
  return { method, path };
}
