// The ceiling for GET by id on this stack: a Nest application on Express with one route that runs the same
// SELECT on a mysql2 pool and returns the row, with nothing else (no validation, request log, security headers,
// database deadline, error mapping or ORM). The benchmark measures the service against it for GET by id, which shows
// how much of what Nest on Express can do at all the service keeps, with everything it does on top.
import 'reflect-metadata';
import { Controller, Get, Module, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import mysql from 'mysql2/promise';
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

class TicketsController {
  async findOne(id) {
    const [[row]] = await pool.query(`SELECT ${COLUMNS} FROM tickets WHERE id = ?`, [id]);
    return toTicket(row);
  }
}
// Plain JavaScript: the decorators applied by hand.
Controller('api/tickets')(TicketsController);
Param('id')(TicketsController.prototype, 'findOne', 0);
Get(':id')(TicketsController.prototype, 'findOne', Object.getOwnPropertyDescriptor(TicketsController.prototype, 'findOne'));
class CeilingModule {}
Module({ controllers: [TicketsController] })(CeilingModule);

const app = await NestFactory.create(CeilingModule, { logger: false });
app.enableShutdownHooks();
await app.listen(Number(env.SERVER_PORT));
