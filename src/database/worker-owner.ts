import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * The name a background worker claims leases and work under: its host, process and a random part, so that two
 * workers never share one, even in one process. At most 57 characters (the host cut to 40), within every owner column.
 */
export function workerOwner(): string {
  return `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
}
