import type { EnvReader } from './env-reader.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `json`: one JSON object per line, for log platforms; `pretty`: human-readable, for development. */
const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggingConfig {
  level: LogLevel;
  format: LogFormat;
}

export function parseLoggingConfig(read: EnvReader): LoggingConfig {
  return {
    level: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    format: read.oneOf('LOG_FORMAT', 'json', LOG_FORMATS),
  };
}
