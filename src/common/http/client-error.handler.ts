import { type IncomingMessage, maxHeaderSize, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorPayload } from '../errors/error-response.js';

/** Node's HTTP parser errors that a client causes, with the status Node itself would answer; any other is a 400. */
const ANSWER_BY_CODE: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: `Request header fields are larger than ${maxHeaderSize} bytes` },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, message: 'Chunk extensions are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'Request not received in time' },
};
const MALFORMED = { status: 400, message: 'Malformed HTTP request' };

type ParserError = NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number };

/** Writes the log line of a request answered here, which no request log line covers. */
export type RefusedRequestLog = (refused: { method: string; path: string; status: number; errorMessage: string }) => void;

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * Requests that never reach Express (unparseable, headers over 16 KiB, too slow) are answered by Node with a
 * bare status line; this answers them in the error shape of their path with the security `headers`, like every
 * other error, logs them, then closes.
 */
export function answerClientErrorsAsJson(server: Server, headers: Array<[string, string]>, log: RefusedRequestLog): void {
  const answer = (socket: Socket, error: ParserError, method: string, path: string): void => {
    if (socket.writable && error.code !== 'ECONNRESET') {
      const { status, message } = ANSWER_BY_CODE[error.code ?? ''] ?? MALFORMED;
      const payload = errorPayload(path, status, message);
      const body = JSON.stringify(payload.body);
      const head = [
        ...headers,
        ['Content-Type', payload.contentType],
        ['Content-Length', Buffer.byteLength(body)],
        ['Connection', 'close'],
      ];
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n` +
          (method === 'HEAD' ? '' : body),
      );
      log({ method, path, status, errorMessage: message });
    }
    socket.destroy();
  };

  // The latest request Node handed over on each connection.
  const latest = new WeakMap<Socket, Exchange>();
  const refused = new WeakSet<Socket>();
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    latest.set(socket, { req, res });
    // Let go of once answered and read whole: a kept-alive connection would hold its last request until its next one,
    // long enough for the young generation to promote them (an error after that is the next request's, answered as
    // such). A request answered before its body was read stays until the body ends, an error in it still its own.
    const release = () => latest.get(socket)?.res === res && latest.delete(socket);
    res.once('close', () => (req.complete ? release() : req.once('end', release)));
  });
  server.on('clientError', (error: ParserError, socket: Socket) => {
    // The parser stays failed: more bytes on the connection would report the same error again.
    if (refused.has(socket)) return;
    refused.add(socket);
    const exchange = latest.get(socket);
    if (exchange && !exchange.req.complete) {
      // The error is in the body of the request being handled: answer for it, unless its answer has begun.
      if (!exchange.res.headersSent) answer(socket, error, exchange.req.method ?? '', pathOf(exchange.req.url ?? ''));
      socket.destroy();
    } else if (exchange && !exchange.res.writableFinished) {
      // The error is the next request's (pipelined): the request before it was read whole and is being handled,
      // and its answer goes out first; a client would otherwise retry a write that was done.
      exchange.res.once('close', () => answer(socket, error, ...requestLineAt(error)));
    } else {
      answer(socket, error, ...requestLineAt(error));
    }
  });
}

/**
 * Method and path of the failed request's line as far as it arrived (even when the line itself was too long):
 * the last request line in the packet before the point of failure, as the packet can begin with requests
 * handled before it; failing that, the start of the packet.
 */
export function requestLineAt(error: Pick<ParserError, 'rawPacket' | 'bytesParsed'>): [method: string, path: string] {
  const packet = error.rawPacket?.subarray(0, Math.min(error.bytesParsed ?? Infinity, 64 * 1024)).toString('latin1') ?? '';
  // Found from its version backwards, in one pass: a regular expression over the packet (up to 64 KiB a client
  // chose) backtracks for seconds on a long run of letters without a version after it.
  const version = packet.lastIndexOf(' HTTP/1.');
  if (version > 0) {
    const space = packet.lastIndexOf(' ', version - 1);
    // A pipelined request begins right after the body before it, not necessarily after a line break.
    let methodStart = space;
    while (methodStart > 0 && space - methodStart < METHOD_MAX_LENGTH && isUpperCaseLetter(packet.charCodeAt(methodStart - 1)))
      methodStart--;
    const target = packet.slice(space + 1, version);
    if (space > methodStart && target.startsWith('/') && !/\s/.test(target)) return [packet.slice(methodStart, space), pathOf(target)];
  }
  const [, method = '', path = ''] = /^([A-Z]{1,20}) (\/[^\s?]*)/.exec(packet) ?? [];
  return [method, path];
}

/** Longer than any method of HTTP's registry (UPDATEREDIRECTREF, 17). */
const METHOD_MAX_LENGTH = 20;

function isUpperCaseLetter(code: number): boolean {
  return code >= 65 && code <= 90;
}

function pathOf(url: string): string {
  return url.split('?')[0];
}
