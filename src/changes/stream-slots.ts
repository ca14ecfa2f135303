import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request } from 'express';
import { principalOf } from '../common/context/principal.js';
import type { AppConfig } from '../config/app-config.js';
import { addressKey } from '../security/client-address.js';

/** A client's slot: given back once when its stream or long-poll ends. */
export interface StreamSlot {
  release(): void;
}

/** Refused past CHANGES_STREAMS_PER_CLIENT: 429 with Retry-After, in the error shape of the version. */
export class TooManyStreamsException extends HttpException {
  constructor(
    limit: number,
    /** Seconds until one of the client's streams or long-polls ends at the latest. */
    readonly retryAfterSeconds: number,
  ) {
    super(
      `Too many streams and long-polls of the change feed at once: at most ${limit} per client; end one, or retry later`,
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}

/**
 * Counts the streams and long-polls of the change feed each client holds on this replica (per process, not shared
 * between replicas): the token's subject, or else the client address as the rate limit counts it. Past
 * `CHANGES_STREAMS_PER_CLIENT` the next is refused, so one client cannot hold the replica's connections and
 * memory. `Retry-After` says when the first of the client's own ends at the latest (a stream at its end time, a
 * long-poll at the end of its wait).
 */
@Injectable()
export class StreamSlots {
  private readonly limit: number;
  private readonly ipv6PrefixLength: number;
  /** Per client, when each of its slots ends at the latest (ms since the epoch). */
  private readonly held = new Map<string, Set<{ endsAt: number }>>();

  constructor(config: ConfigService<AppConfig, true>) {
    this.limit = config.get('changes', { infer: true }).streamsPerClient;
    this.ipv6PrefixLength = config.get('security', { infer: true }).rateLimit?.ipv6PrefixLength ?? 64;
  }

  /** Takes a slot for `request`'s client until `endsAt` at the latest; throws TooManyStreamsException past the limit. */
  take(request: Request, endsAt: number): StreamSlot {
    if (this.limit === 0) return { release: () => undefined };
    const client = this.clientKey(request);
    const slots = this.held.get(client) ?? new Set();
    if (slots.size >= this.limit) {
      const firstEnd = Math.min(...[...slots].map((slot) => slot.endsAt));
      throw new TooManyStreamsException(this.limit, Math.max(1, Math.ceil((firstEnd - Date.now()) / 1000)));
    }
    const slot = { endsAt };
    slots.add(slot);
    this.held.set(client, slots);
    return {
      release: () => {
        slots.delete(slot);
        if (slots.size === 0 && this.held.get(client) === slots) this.held.delete(client);
      },
    };
  }

  private clientKey(request: Request): string {
    const subject = principalOf(request)?.subject;
    if (subject !== undefined) return `sub:${subject}`;
    const address = addressKey(request.ip, this.ipv6PrefixLength) ?? addressKey(request.socket.remoteAddress, this.ipv6PrefixLength);
    return `addr:${address ?? 'unknown'}`;
  }
}
