import { AsyncResource } from 'node:async_hooks';

/**
 * `callback`, run in the async context of whoever made it (its request's deadline and log context), when a socket's
 * event calls it back from the context of whoever opened that socket: with the `this` and arguments it is called
 * with, answering what it answers. As `AsyncResource.bind` does, without the `asyncResource` accessor property `bind`
 * defines on each function it makes: V8 keeps that accessor pair in the old generation, which holds the callback and
 * all it reaches (the statement's result, the request's promise) through every scavenge until the next Mark-Compact.
 * On every statement that promoted 2.7 KB, a GET by id's whole 3.4 KB (docs/performance.md, "Latency at a fixed load").
 */
export function inCallersContext<A extends unknown[], R>(name: string, callback: (...args: A) => R): (...args: A) => R {
  const caller = new AsyncResource(name);
  // A method, which has no `prototype` of its own either.
  return {
    made(this: unknown, ...args: A): R {
      return caller.runInAsyncScope(callback, this, ...args);
    },
  }.made;
}
