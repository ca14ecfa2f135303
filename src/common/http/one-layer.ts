import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run in order as one Express layer. Each layer of Express's router costs every request its matching
 * and bookkeeping; the middleware every request passes through are mounted as one. As in Express, an error passed
 * to `next`, thrown, or rejected by a returned promise skips the rest and goes to the error handler.
 */
export function inOneLayer(...handlers: RequestHandler[]): RequestHandler {
  if (handlers.length === 1) return handlers[0];
  return (req: Request, res: Response, next: NextFunction) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error) return next(error);
      if (index === handlers.length) return next();
      const handler = handlers[index++];
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.then(undefined, (rejected: unknown) => next(rejected ?? new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
