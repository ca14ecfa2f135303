import { BadRequestException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { limitQueryParameters, queryParameterCount } from './query-limit.middleware.js';

describe('query parameter limit', () => {
  it('counts the non-empty parameters of a raw query string', () => {
    expect(queryParameterCount('/api/tickets')).toBe(0);
    expect(queryParameterCount('/api/tickets?')).toBe(0);
    expect(queryParameterCount('/api/tickets?status=OPEN&status=CLOSED&&x')).toBe(3);
  });

  it('lets 100 parameters through and refuses 101 with a 400', () => {
    const url = (n: number) => `/api/tickets?${Array.from({ length: n }, (_, i) => `p${i}=1`).join('&')}`;
    const run = (n: number) => {
      const calls: unknown[][] = [];
      limitQueryParameters({ originalUrl: url(n) } as Request, {} as Response, (...args: unknown[]) => calls.push(args));
      return calls[0];
    };
    expect(run(100)).toEqual([]);
    expect(run(101)[0]).toBeInstanceOf(BadRequestException);
  });
});
