// The floor of what GET by id can cost in Node: node:http and a mysql2 pool, the same SELECT per request and the
// row as JSON, nothing else (no framework, validation, request log, headers, deadline, batching or error shape).
// The benchmark measures the service against it for GET by id.
import http from 'node:http';
import mysql from 'mysql2';
import { COLUMNS, toTicket } from './ticket-row.mjs';

const env = process.env;
const pool = mysql.createPool({
  host: env.DB_HOST ?? '127.0.0.1',
  port: Number(env.DB_PORT ?? 3306),
  user: env.DB_USERNAME ?? 'root',
  password: env.DB_PASSWORD ?? '',
  database: env.DB_DATABASE,
  charset: 'utf8mb4_unicode_ci',
  timezone: 'Z',
  connectionLimit: 20,
});

const byId = /^\/api\/tickets\/(\d+)$/;
const server = http.createServer((request, response) => {
  const id = byId.exec(request.url ?? '')?.[1];
  if (request.method !== 'GET' || !id) {
    response.writeHead(404).end();
    return;
  }
  pool.query(`SELECT ${COLUMNS} FROM tickets WHERE id = ?`, [id], (error, rows) => {
    if (error) return response.writeHead(503).end();
    if (rows.length === 0) return response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(toTicket(rows[0])));
  });
});
server.listen(Number(env.SERVER_PORT));
process.on('SIGTERM', () => server.close(() => pool.end(() => process.exit(0))));
