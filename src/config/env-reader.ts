/** The environment as the service reads it: names to values, unset ones absent. */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

/** Typed, validated reads of the environment; every failure is a ConfigError naming the variable. */
export class EnvReader {
  constructor(private readonly env: Env) {}

  /** The value of the first of `names` that is set (Spring's spelling and its dashed variant), or undefined. */
  first(...names: string[]): string | undefined {
    const name = names.find((candidate) => this.has(candidate));
    return name === undefined ? undefined : this.env[name];
  }

  invalid(name: string, problem: string): ConfigError {
    return new ConfigError(`${name} ${problem}`);
  }

  has(name: string): boolean {
    return (this.env[name] ?? '') !== '';
  }

  string(name: string, fallback: string, allowEmpty = false): string {
    const value = this.env[name];
    if (value === undefined || (value === '' && !allowEmpty)) return fallback;
    return value;
  }

  int(name: string, fallback: number): number {
    const raw = this.string(name, String(fallback)).trim();
    if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
    return Number(raw);
  }

  /**
   * A lease renewed by a worker's passes must outlast several poll intervals: a lease valid for its TTL less a fifth,
   * renewed only during a pass, would otherwise be lost between two passes. Answers `leaseMs`.
   */
  leaseCoveringPolls(leaseName: string, leaseMs: number, pollName: string, pollMs: number): number {
    if (leaseMs < 4 * pollMs) throw this.invalid(leaseName, `must be at least 4 × ${pollName} (${4 * pollMs}), got ${leaseMs}`);
    return leaseMs;
  }

  intBetween(name: string, fallback: number, min: number, max: number): number {
    const value = this.int(name, fallback);
    if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
    return value;
  }

  port(name: string, fallback: number, min = 1): number {
    const port = this.int(name, fallback);
    if (port < min || port > 65535) throw new ConfigError(`${name} must be a port between ${min} and 65535, got ${port}`);
    return port;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name, String(fallback)).trim().toLowerCase();
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw new ConfigError(`${name} must be "true" or "false", got "${raw}"`);
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.string(name, fallback) as T;
    if (!allowed.includes(value)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value;
  }

  /** A number from 0 to 1, e.g. a sampling probability. */
  fraction(name: string, fallback: number): number {
    const raw = this.string(name, String(fallback)).trim();
    const value = /^\d*\.?\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= 0 && value <= 1)) throw new ConfigError(`${name} must be a number from 0 to 1, got "${raw}"`);
    return value;
  }

  httpUrl(name: string, fallback: string): string {
    const value = this.string(name, fallback).trim();
    if (!/^https?:\/\/[^\s]+$/.test(value) || !URL.canParse(value))
      throw new ConfigError(`${name} must be an http:// or https:// URL, got "${value}"`);
    return value;
  }

  identifier(name: string, fallback: string): string {
    const value = this.string(name, fallback);
    // The database name is interpolated into CREATE DATABASE, so only plain identifiers are allowed.
    if (!/^[A-Za-z0-9_$]{1,64}$/.test(value)) {
      throw new ConfigError(`${name} must be 1-64 letters, digits, "_" or "$", got "${value}"`);
    }
    return value;
  }

  amqpUrl(name: string, fallback: string): string {
    return this.validAmqpUrl(name, this.string(name, fallback));
  }

  validAmqpUrl(name: string, value: string): string {
    if (!/^amqps?:\/\/[^\s]+$/.test(value) || !URL.canParse(value)) throw new ConfigError(`${name} must be an amqp:// or amqps:// URL`);
    return value;
  }

  list(name: string, fallback: string): string[] {
    return this.string(name, fallback)
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }
}

/** Spring binds enum values loosely: `WHEN_AUTHORIZED`, `when-authorized` and `When_Authorized` are one value. */
export function relaxedEnum<T extends string>(
  read: EnvReader,
  name: string,
  raw: string | undefined,
  fallback: T,
  allowed: readonly T[],
): T {
  if (raw === undefined) return fallback;
  const value = raw.trim().toLowerCase().replaceAll('_', '-') as T;
  if (!allowed.includes(value)) throw read.invalid(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  return value;
}
