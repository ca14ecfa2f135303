// The tail the host itself adds (the last line of the fixed-load section; `node bench/host-floor.mjs --rate=<req/s>
// --seconds=<s>` alone): the constant-rate driver against a bare node:http server in a process of its own that answers
// at once, with the event loop's delay measured in both processes. A stall that both event loops see at the same
// moment is neither process's doing: the virtual machine was paused. Whatever a service does, its tail at this rate is
// not under this one.
import { fork } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { constantRate } from './constant-rate.mjs';

const PORT = 18556;
const delayMaxMs = (histogram) => Number((histogram.max / 1e6).toFixed(1));

if (process.argv[2] === 'server') {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  http
    .createServer((request, response) => {
      request.resume();
      request.on('end', () => response.end('{}'));
    })
    .listen(PORT, '127.0.0.1', () => process.send('listening'));
  process.on('message', () => process.send(delayMaxMs(loop)));
}

/** p50, p99, p99.9 and max ms of a bare server at `rate` for `seconds`, and each process's longest event-loop delay. */
export async function hostFloor({ rate, seconds }) {
  const server = fork(fileURLToPath(import.meta.url), ['server']);
  try {
    await new Promise((resolve) => server.once('message', resolve));
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const result = await constantRate({ url: `http://127.0.0.1:${PORT}`, rate, seconds, next: () => ({ method: 'GET', path: '/' }) });
    loop.disable();
    server.send('report');
    const serverLoopMaxMs = await new Promise((resolve) => server.once('message', resolve));
    return { p50: result.p50, p99: result.p99, p999: result.p999, max: result.max, driverLoopMaxMs: delayMaxMs(loop), serverLoopMaxMs };
  } finally {
    server.kill();
  }
}

/** hostFloor's answer as one line. */
export function floorLine(floor) {
  return (
    `p50 ${floor.p50} ms, p99 ${floor.p99} ms, p99.9 ${floor.p999} ms, max ${floor.max} ms; ` +
    `longest event-loop delay: driver ${floor.driverLoopMaxMs} ms, server ${floor.serverLoopMaxMs} ms`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] !== 'server') {
  const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const floor = await hostFloor({ rate: arg('rate', 500), seconds: arg('seconds', 10) });
  console.log(`bare node:http: ${floorLine(floor)}`);
}
