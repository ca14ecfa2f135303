import { Logger } from '@nestjs/common';
import { createConnection } from 'mysql2/promise';
import type { AppConfig } from '../config/app-config.js';

const logger = new Logger('Database');

/**
 * Creates the configured database when it does not exist yet, waiting for the server with
 * bounded retries so that a service started alongside its database comes up by itself.
 */
export async function ensureDatabase(db: AppConfig['db'], attempts = 10, delayMs = 2_000): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const connection = await createConnection({
        host: db.host,
        port: db.port,
        user: db.username,
        password: db.password,
        connectTimeout: db.queryTimeoutMs,
      });
      try {
        await connection.query(`CREATE DATABASE IF NOT EXISTS \`${db.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      } finally {
        await connection.end();
      }
      return;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (attempt >= attempts) {
        throw new Error(`Database ${db.host}:${db.port} not usable after ${attempts} attempts: ${reason}`, { cause: error });
      }
      logger.warn(`Database ${db.host}:${db.port} not ready (${reason}); retry ${attempt}/${attempts - 1} in ${delayMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
