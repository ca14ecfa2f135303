import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { jest } from '@jest/globals';
import { inOneLayer } from './one-layer.js';

describe('inOneLayer', () => {
  const req = {} as Request;
  const res = {} as Response;

  function run(...handlers: RequestHandler[]): Promise<unknown[]> {
    return new Promise((resolve) => inOneLayer(...handlers)(req, res, ((...args: unknown[]) => resolve(args)) as NextFunction));
  }

  it('runs the middleware in order, synchronous or not, and then goes on', async () => {
    const ran: string[] = [];
    const next = await run(
      (_req, _res, next) => (ran.push('a'), next()),
      (_req, _res, next) => void setImmediate(() => (ran.push('b'), next())),
      (_req, _res, next) => (ran.push('c'), next()),
    );
    expect({ ran, next }).toEqual({ ran: ['a', 'b', 'c'], next: [] });
  });

  it('hands an error passed on, thrown (also after an asynchronous step) or rejected to the error handler and runs no more', async () => {
    const failure = new Error('refused');
    const never = jest.fn();
    expect(await run((_req, _res, next) => next(failure), never)).toEqual([failure]);
    expect(
      await run(() => {
        throw failure;
      }, never),
    ).toEqual([failure]);
    expect(
      await run(
        (_req, _res, next) => void setImmediate(next),
        () => {
          throw failure;
        },
        never,
      ),
    ).toEqual([failure]);
    expect(
      await run(async () => {
        throw failure;
      }, never),
    ).toEqual([failure]);
    expect(never).not.toHaveBeenCalled();
  });
});
