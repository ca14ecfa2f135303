// The raw baseline: what the hot paths cost with no framework, ORM or validation library.
// node:http + a mysql2 pool + an amqplib confirm channel, running the same SQL as the service
// (a transaction writing the ticket and its outbox row; publish after commit; delete the row once confirmed).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import amqp from 'amqplib';
import mysql from 'mysql2/promise';
import { COLUMNS, toTicket } from './ticket-row.mjs';

const env = process.env;
const port = Number(env.SERVER_PORT ?? 8081);
const exchange = env.RABBITMQ_EXCHANGE ?? 'ticket.exchange';
const routingKey = env.RABBITMQ_ROUTING_KEY ?? 'ticket.routing.key';

const pool = mysql.createPool({
  host: env.DB_HOST ?? '127.0.0.1',
  port: Number(env.DB_PORT ?? 3306),
  user: env.DB_USERNAME ?? 'root',
  password: env.DB_PASSWORD ?? '',
  database: env.DB_DATABASE ?? 'tickets_bench_raw',
  charset: 'utf8mb4_unicode_ci',
  timezone: 'Z',
  // The same pool size as the service, so the comparison is about per-request cost.
  connectionLimit: 20,
  enableKeepAlive: true,
});

const connection = await amqp.connect(env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
const channel = await connection.createConfirmChannel();
await channel.assertExchange(exchange, env.RABBITMQ_EXCHANGE_TYPE ?? 'topic', { durable: true });
if (env.RABBITMQ_QUEUE) {
  await channel.assertQueue(env.RABBITMQ_QUEUE, { durable: true });
  await channel.bindQueue(env.RABBITMQ_QUEUE, exchange, routingKey);
}

const STATUSES = new Set(['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED']);
const PRIORITIES = new Set(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']);

function send(res, status, body) {
  const json = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Hand-written checks of the required fields: the least a server must do, with no library. */
function parseRequest(body) {
  const ok =
    body && typeof body === 'object' &&
    typeof body.title === 'string' && body.title.trim() !== '' &&
    typeof body.description === 'string' && body.description.trim() !== '' &&
    typeof body.requesterEmail === 'string' && body.requesterEmail.includes('@') &&
    STATUSES.has(body.status) && PRIORITIES.has(body.priority);
  if (!ok) return undefined;
  const { title, description, status, priority, requesterEmail } = body;
  return { title, description, status, priority, requesterEmail, assignedTo: body.assignedTo ?? null };
}

async function recordEvent(conn, eventType, ticket, now) {
  const event = { eventId: randomUUID(), eventType, occurredAt: now, ticketId: ticket.id, ticket };
  const payload = JSON.stringify(event);
  const [result] = await conn.execute(
    'INSERT INTO outbox (event_id, event_type, ticket_id, payload, occurred_at) VALUES (?, ?, ?, ?, ?)',
    [event.eventId, eventType, ticket.id, payload, now],
  );
  return { outboxId: result.insertId, event, payload };
}

/** After the commit: publish on the confirm channel, then delete the outbox row the broker confirmed. */
function publish({ outboxId, event, payload }) {
  channel.publish(exchange, routingKey, Buffer.from(payload, 'utf8'), {
    contentType: 'application/json',
    contentEncoding: 'UTF-8',
    persistent: true,
    messageId: event.eventId,
    type: event.eventType,
    timestamp: Math.floor(event.occurredAt.getTime() / 1000),
  }, (err) => {
    if (!err) pool.execute('DELETE FROM outbox WHERE id = ?', [outboxId]).catch(() => undefined);
  });
}

async function inTransaction(work) {
  const conn = await pool.getConnection();
  try {
    await conn.beginTransaction();
    const result = await work(conn);
    await conn.commit();
    return result;
  } catch (error) {
    await conn.rollback().catch(() => undefined);
    throw error;
  } finally {
    conn.release();
  }
}

async function create(req, res) {
  const request = parseRequest(await readBody(req));
  if (!request) return send(res, 400, { status: 400, error: 'Bad Request' });
  const now = new Date();
  const outcome = await inTransaction(async (conn) => {
    const ticket = { id: 0, ...request, createdAt: now, updatedAt: now, resolvedAt: null };
    const [result] = await conn.execute(
      `INSERT INTO tickets (title, description, status, priority, requester_email, assigned_to, created_at, updated_at, resolved_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
      [ticket.title, ticket.description, ticket.status, ticket.priority, ticket.requesterEmail, ticket.assignedTo, now, now],
    );
    ticket.id = Number(result.insertId);
    return { ticket, pending: await recordEvent(conn, 'CREATED', ticket, now) };
  });
  publish(outcome.pending);
  send(res, 201, outcome.ticket);
}

async function replace(id, req, res) {
  const request = parseRequest(await readBody(req));
  if (!request) return send(res, 400, { status: 400, error: 'Bad Request' });
  const now = new Date();
  const outcome = await inTransaction(async (conn) => {
    const [rows] = await conn.execute(`SELECT ${COLUMNS} FROM tickets WHERE id = ? FOR UPDATE`, [id]);
    if (rows.length === 0) return undefined;
    const current = toTicket(rows[0]);
    const resolvedAt = current.resolvedAt ?? (request.status === 'RESOLVED' || request.status === 'CLOSED' ? now : null);
    const ticket = { ...current, ...request, updatedAt: now, resolvedAt };
    await conn.execute(
      `UPDATE tickets SET title = ?, description = ?, status = ?, priority = ?, requester_email = ?, assigned_to = ?,
       updated_at = ?, resolved_at = ? WHERE id = ?`,
      [ticket.title, ticket.description, ticket.status, ticket.priority, ticket.requesterEmail, ticket.assignedTo, now, resolvedAt, id],
    );
    return { ticket, pending: await recordEvent(conn, 'UPDATED', ticket, now) };
  });
  if (!outcome) return send(res, 404, { status: 404, error: 'Not Found' });
  publish(outcome.pending);
  send(res, 200, outcome.ticket);
}

async function findOne(id, res) {
  const [rows] = await pool.execute(`SELECT ${COLUMNS} FROM tickets WHERE id = ?`, [id]);
  if (rows.length === 0) return send(res, 404, { status: 404, error: 'Not Found' });
  send(res, 200, toTicket(rows[0]));
}

async function findAll(url, res) {
  const status = url.searchParams.get('status');
  const [rows] = status
    ? await pool.execute(`SELECT ${COLUMNS} FROM tickets WHERE status = ? ORDER BY id ASC`, [status])
    : await pool.query(`SELECT ${COLUMNS} FROM tickets ORDER BY id ASC`);
  send(res, 200, rows.map(toTicket));
}

async function route(req, res) {
  const url = new URL(req.url, 'http://localhost');
  const match = /^\/api\/tickets(?:\/(\d+))?$/.exec(url.pathname);
  if (!match) return send(res, 404, { status: 404, error: 'Not Found' });
  const id = match[1];
  if (id === undefined && req.method === 'GET') return findAll(url, res);
  if (id === undefined && req.method === 'POST') return create(req, res);
  if (id !== undefined && req.method === 'GET') return findOne(id, res);
  if (id !== undefined && req.method === 'PUT') return replace(id, req, res);
  send(res, 405, { status: 405, error: 'Method Not Allowed' });
}

const server = http.createServer((req, res) => {
  route(req, res).catch((error) => {
    const status = error instanceof SyntaxError ? 400 : 500;
    if (!res.headersSent) send(res, status, { status, error: String(error.message) });
  });
});
server.listen(port, () => console.log(`raw baseline listening on port ${port}`));

async function shutdown() {
  server.close();
  await channel.waitForConfirms().catch(() => undefined);
  await connection.close().catch(() => undefined);
  await pool.end();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
