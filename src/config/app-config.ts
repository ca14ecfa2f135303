import { type Env, EnvReader } from './env-reader.js';
import { type AttachmentsConfig, parseAttachmentsConfig } from './attachments-config.js';
import { type DatabaseConfig, parseDatabaseConfig } from './database-config.js';
import { type IdempotencyConfig, parseIdempotencyConfig } from './idempotency-config.js';
import { type LoggingConfig, parseLoggingConfig } from './logging-config.js';
import { type ManagementConfig, parseManagementConfig } from './management-config.js';
import { type OutboxConfig, parseOutboxConfig } from './outbox-config.js';
import { type ChangesConfig, parseChangesConfig } from './changes-config.js';
import { parseRabbitMqConfig, type RabbitMqConfig } from './rabbitmq-config.js';
import { parseRedisConfig, type RedisConfig } from './redis-config.js';
import { parseSecurityConfig, type SecurityConfig } from './security-config.js';
import { parseServerConfig, type ServerConfig } from './server-config.js';
import { parseTicketsConfig, type TicketsConfig } from './tickets-config.js';
import { parseSlaConfig, type SlaConfig } from './sla-config.js';
import { parseWebhooksConfig, type WebhooksConfig } from './webhooks-config.js';
import { type MailConfig, parseMailConfig } from './mail-config.js';

/** Every setting, one namespace per concern, each read and validated by its own file. */
export interface AppConfig {
  server: ServerConfig;
  db: DatabaseConfig;
  rabbitmq: RabbitMqConfig;
  outbox: OutboxConfig;
  idempotency: IdempotencyConfig;
  tickets: TicketsConfig;
  management: ManagementConfig;
  security: SecurityConfig;
  redis: RedisConfig;
  log: LoggingConfig;
  sla: SlaConfig;
  changes: ChangesConfig;
  webhooks: WebhooksConfig;
  attachments: AttachmentsConfig;
  mail: MailConfig;
}

/** Reads and validates the environment; throws a ConfigError naming the variable at fault. */
export function parseConfig(env: Env): AppConfig {
  const read = new EnvReader(env);
  return {
    server: parseServerConfig(read),
    db: parseDatabaseConfig(read),
    rabbitmq: parseRabbitMqConfig(read),
    outbox: parseOutboxConfig(read),
    idempotency: parseIdempotencyConfig(read),
    tickets: parseTicketsConfig(read),
    management: parseManagementConfig(read),
    security: parseSecurityConfig(read),
    redis: parseRedisConfig(read),
    log: parseLoggingConfig(read),
    sla: parseSlaConfig(read),
    changes: parseChangesConfig(read),
    webhooks: parseWebhooksConfig(read),
    attachments: parseAttachmentsConfig(read),
    mail: parseMailConfig(read),
  };
}
