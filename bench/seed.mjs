// Database set-up for the benchmark: a fresh copy of the service's schema for the baseline, and the same
// seeded tickets in both databases, written in bulk so seeding takes seconds.
import mysql from 'mysql2/promise';

const STATUSES = ['IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'];
const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];

export async function adminConnection() {
  return mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '', timezone: 'Z', multipleStatements: false });
}

export async function dropDatabases(admin, names) {
  for (const name of names) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
}

/** The baseline runs on a copy of the schema the service's migrations created, so both run the same SQL on the same tables. */
export async function cloneSchema(admin, from, to) {
  await admin.query(`CREATE DATABASE \`${to}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.query(`CREATE TABLE \`${to}\`.tickets LIKE \`${from}\`.tickets`);
}

/** `count` tickets, one in ten OPEN (so `?status=OPEN` returns ~count/10), the same rows in every database. */
export async function seedTickets(admin, database, count) {
  // Comments and history reference tickets (and go with them), and the change log records their changes; the
  // conventional service's copy has none of these tables.
  const [dependents] = await admin.query(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? AND table_name IN ('ticket_comments', 'ticket_history', 'change_log')`,
    [database],
  );
  await admin.query('SET FOREIGN_KEY_CHECKS = 0');
  try {
    for (const { name } of dependents) await admin.query(`TRUNCATE TABLE \`${database}\`.\`${name}\``);
    await admin.query(`TRUNCATE TABLE \`${database}\`.tickets`);
  } finally {
    await admin.query('SET FOREIGN_KEY_CHECKS = 1');
  }
  const now = new Date('2026-11-23T09:00:00.000Z');
  for (let start = 0; start < count; start += 1000) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + 1000); i++) {
      rows.push([
        `Ticket ${i}: printer on floor ${i % 12} jams`,
        `Paper is stuck in tray ${i % 4}; the printer shows error E${i % 97}. Reported from desk ${i}.`,
        i % 10 === 0 ? 'OPEN' : STATUSES[i % STATUSES.length],
        PRIORITIES[i % PRIORITIES.length],
        `user${i % 500}@example.com`,
        i % 3 === 0 ? null : `desk-${i % 7}`,
        now,
        now,
        null,
      ]);
    }
    await admin.query(
      `INSERT INTO \`${database}\`.tickets (title, description, status, priority, requester_email, assigned_to, created_at, updated_at, resolved_at) VALUES ?`,
      [rows],
    );
  }
}
