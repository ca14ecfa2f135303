// POST with many webhook endpoints (part of `npm run bench`): the write path must not grow with the endpoints
// registered or the deliveries pending. POST create on the service alone: first with no endpoint, then with 1,000
// enabled endpoints subscribed to every kind (their receiver accepts connections and never answers) and 20,000
// pending deliveries waiting for a retry. The two states run one after the other, each after a warm-up (endpoints
// cannot come and go between alternating rounds without leaving deliveries behind).
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import { measure } from './report.mjs';

const ENDPOINTS = 1_000;
const PENDING_PER_ENDPOINT = 20;

/** `{ none, crowded }`: POST create on `service` without endpoints, then with 1,000 hanging ones and 20,000 pending deliveries. */
export async function endpointsSection({ admin, service, database, scenario, warmupS, seconds }) {
  const run = () => autocannon({ url: service.url, connections: scenario.connections, duration: seconds, requests: scenario.requests });
  await autocannon({ url: service.url, connections: scenario.connections, duration: warmupS, requests: scenario.requests });
  const none = await measure(service, false, run);

  // Accepts and never answers: every attempt to these endpoints runs into WEBHOOKS_TIMEOUT_MS.
  const sockets = new Set();
  const hanging = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${hanging.address().port}/hook`;
  try {
    await admin.query(
      `INSERT INTO \`${database}\`.webhooks (url, secret, created_at, updated_at)
       SELECT CONCAT(?, seq), 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', NOW(3), NOW(3) FROM \`${database}\`.seq_1_to_${ENDPOINTS}`,
      [url],
    );
    // Where the log stands, read without locking (an INSERT … SELECT would lock the sequencer's row and the newest change).
    const [[log]] = await admin.query(
      `SELECT s.last_seq AS lastSeq, (SELECT COALESCE(MAX(id), 0) FROM \`${database}\`.change_log) AS lastChangeId
       FROM \`${database}\`.change_feed_sequencer s WHERE s.id = 1`,
    );
    await admin.query(
      `INSERT INTO \`${database}\`.webhook_cursors (webhook_id, delivered_through, after_change_id)
       SELECT id, ?, ? FROM \`${database}\`.webhooks`,
      [log.lastSeq, log.lastChangeId],
    );
    await admin.query(
      `INSERT INTO \`${database}\`.webhook_deliveries (webhook_id, event_id, event_type, type, ticket_id, payload, occurred_at, created_at, next_attempt_at)
       SELECT w.id, UUID(), 'UPDATED', 'ticket.updated', n.seq, '{"eventType":"UPDATED"}', NOW(3), NOW(3), NOW(3) + INTERVAL 1 HOUR
       FROM \`${database}\`.webhooks w JOIN \`${database}\`.seq_1_to_${PENDING_PER_ENDPOINT} n`,
    );
    await autocannon({ url: service.url, connections: scenario.connections, duration: warmupS, requests: scenario.requests });
    const crowded = await measure(service, false, run);
    return { endpoints: ENDPOINTS, pendingDeliveries: ENDPOINTS * PENDING_PER_ENDPOINT, none, crowded };
  } finally {
    await admin.query(`DELETE FROM \`${database}\`.webhook_deliveries`);
    await admin.query(`DELETE FROM \`${database}\`.webhook_cursors`);
    await admin.query(`DELETE FROM \`${database}\`.webhooks`);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hanging.close(resolve));
  }
}
