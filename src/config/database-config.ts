import type { EnvReader } from './env-reader.js';

export interface DatabaseConfig {
  host: string;
  port: number;
  username: string;
  password: string;
  database: string;
  queryTimeoutMs: number;
}

export function parseDatabaseConfig(read: EnvReader): DatabaseConfig {
  return {
    host: read.string('DB_HOST', '127.0.0.1'),
    port: read.port('DB_PORT', 3306),
    username: read.string('DB_USERNAME', 'root'),
    password: read.string('DB_PASSWORD', '', true),
    database: read.identifier('DB_DATABASE', 'tickets'),
    queryTimeoutMs: read.int('DB_QUERY_TIMEOUT_MS', 5_000),
  };
}
