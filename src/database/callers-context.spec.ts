import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import { inCallersContext } from './callers-context.js';

describe('inCallersContext', () => {
  const context = new AsyncLocalStorage<string>();

  it("runs the callback in its maker's context, with its arguments, when another context calls it", () => {
    // A socket's events run in the context of whoever opened the socket.
    const socket = context.run('opener', () => new EventEmitter());
    const seen: Array<[string | undefined, ...unknown[]]> = [];
    const callback = context.run('request', () =>
      inCallersContext('test', (error: Error | null, rows: number[]) => seen.push([context.getStore(), error, rows])),
    );
    context.run('opener', () => socket.once('data', callback));
    context.run('another request', () => socket.emit('data', null, [1, 2]));
    expect(seen).toEqual([['request', null, [1, 2]]]);
  });

  it('passes on the this it is called with, answers what the callback answers, and throws what it throws', () => {
    const made = inCallersContext('test', function (this: { n: number }, add: number) {
      if (add < 0) throw new Error('negative');
      return this.n + add;
    });
    const holder = { n: 40, made };
    expect(holder.made(2)).toBe(42);
    expect(() => holder.made(-1)).toThrow('negative');
  });

  it('gives the function it makes no property of its own beyond a function’s (AsyncResource.bind gives an accessor, which V8 keeps in the old generation)', () => {
    const made = inCallersContext('test', () => undefined);
    expect(Object.getOwnPropertyNames(made).sort()).toEqual(['length', 'name']);
  });
});
