import { currentRequestContext, runInRequestContext } from '../common/context/request-context.js';
import { BatchedLookup } from './batched-lookup.js';

describe('BatchedLookup', () => {
  function lookup(maxKeys?: number, fail?: Error) {
    const statements: string[][] = [];
    const contexts: unknown[] = [];
    const rows = new Map([
      ['1', 'one'],
      ['2', 'two'],
      ['3', 'three'],
    ]);
    const batched = new BatchedLookup<string>(async (keys) => {
      statements.push(keys);
      contexts.push(currentRequestContext());
      if (fail) throw fail;
      return new Map(keys.filter((key) => rows.has(key)).map((key) => [key, rows.get(key)!]));
    }, maxKeys);
    return { batched, statements, contexts };
  }

  it('reads the keys asked for in one round with one statement, each key once, and answers every caller', async () => {
    const { batched, statements } = lookup();
    const answers = await Promise.all(['1', '2', '1', '9'].map((key) => batched.get(key)));
    expect(answers).toEqual(['one', 'two', 'one', undefined]);
    expect(statements).toEqual([['1', '2', '9']]);
  });

  it('starts a new statement for keys asked for once a round is over', async () => {
    const { batched, statements } = lookup();
    expect(await batched.get('1')).toBe('one');
    expect(await batched.get('2')).toBe('two');
    expect(statements).toEqual([['1'], ['2']]);
  });

  it('splits a round into statements of at most maxKeys keys', async () => {
    const { batched, statements } = lookup(2);
    expect(await Promise.all(['1', '2', '3'].map((key) => batched.get(key)))).toEqual(['one', 'two', 'three']);
    expect(statements).toEqual([['1', '2'], ['3']]);
  });

  it('fails every caller of a failed statement with its error', async () => {
    const failure = new Error('connect ECONNREFUSED');
    const { batched } = lookup(undefined, failure);
    const answers = await Promise.allSettled(['1', '2'].map((key) => batched.get(key)));
    expect(answers).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
  });

  it('runs the statement in no request context, even when a request opened the round', async () => {
    const { batched, contexts } = lookup();
    await runInRequestContext({ requestId: 'first' }, () => batched.get('1'));
    expect(contexts).toEqual([undefined]);
  });
});
