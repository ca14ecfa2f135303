// constantRate (constant-rate.mjs) in a worker thread of its own, so that what the benchmark's main thread does
// meanwhile (reading large answers) does not delay its requests and count as the server's latency. Sends GET by id
// at `rate` until the parent posts 'stop', then posts the result.
import { parentPort, workerData } from 'node:worker_threads';
import { constantRate } from './constant-rate.mjs';

const { url, rate, rows } = workerData;
const stopped = new Promise((resolve) => parentPort.once('message', resolve));
const result = await constantRate({
  url,
  rate,
  until: stopped,
  next: () => ({ method: 'GET', path: `/api/tickets/${1 + Math.floor(Math.random() * rows)}` }),
});
// Its requests' latencies one by one stay here: the parent keeps the summary.
const { samples: _, ...summary } = result;
parentPort.postMessage(summary);
