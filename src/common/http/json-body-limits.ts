import { BadRequestException } from '@nestjs/common';
import { json, type RequestHandler } from 'express';
import { REQUEST_LIMITS } from './request-limits.js';

/** An unpaired UTF-16 surrogate: a `u` regex only matches one that is not half of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * What makes a parsed JSON body unacceptable before validation, or undefined when nothing does. Iterative,
 * so a body of any depth is inspected without recursion.
 * - Nesting past `maxDepth`: class-transformer recurses into every nested value and would overflow the
 *   stack (a 500) on a body of a few hundred kilobytes.
 * - A string or key holding an unpaired surrogate (`"\ud800"`) is not Unicode text: MariaDB would store
 *   U+FFFD, so the ticket answered would differ from the ticket stored.
 */
export function jsonBodyProblem(body: unknown, maxDepth: number): string | undefined {
  const pending: Array<[unknown, number]> = [[body, 0]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return 'a string holds an unpaired UTF-16 surrogate';
    } else if (typeof value === 'object' && value !== null) {
      if (depth >= maxDepth) return `nesting deeper than ${maxDepth} levels`;
      for (const [key, child] of Object.entries(value)) {
        if (LONE_SURROGATE.test(key)) return 'a string holds an unpaired UTF-16 surrogate';
        pending.push([child, depth + 1]);
      }
    }
  }
  return undefined;
}

/**
 * Express's JSON body parser for the given media types and size limit, which then refuses bodies that parse but
 * cannot be taken (see jsonBodyProblem) with a 400, as malformed JSON. POSTs to `except` are left alone.
 */
export function jsonBody(options: { limit: number; type: string[]; except?: RegExp }): RequestHandler {
  const parse = json({ limit: options.limit, type: options.type });
  return (req, res, next) => {
    // POSTs to `except` paths keep their body unread, for their route to stream.
    if (req.method === 'POST' && options.except?.test(req.path)) return next();
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      const problem = jsonBodyProblem(req.body, REQUEST_LIMITS.jsonDepth);
      next(problem ? new BadRequestException(`JSON parse error: ${problem}`) : undefined);
    });
  };
}
