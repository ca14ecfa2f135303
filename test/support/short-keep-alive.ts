// Runs before each test file (jest setupFiles): the file's fetch keeps an idle connection for at most a second.
//
// The service closes a kept-alive connection after 5 s without a request (SERVER_KEEP_ALIVE_TIMEOUT_MS) and says so
// (`Keep-Alive: timeout=5`); fetch would reuse one for up to 3–4 s. A process that gets no CPU for the second or two
// between those (two service processes, a broker consumer and the servers on two busy cores) then sends its request on
// a connection the other side is closing, and fetch fails with "other side closed" (RFC 9112 §9.3.1: a client must be
// ready for it). One second leaves four between the two ends' clocks.
import { Agent } from 'undici';

const connections = new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 });
const builtin = globalThis.fetch;
globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
  builtin(input, { dispatcher: connections, ...init } as RequestInit)) as typeof fetch;
