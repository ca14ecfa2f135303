import { Turns } from './json-array-response.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('Turns', () => {
  it('runs one waiting list per turn of the event loop, in the order they came', async () => {
    const turns = new Turns();
    const ran: string[] = [];
    turns.wait(() => ran.push('a'));
    turns.wait(() => ran.push('b'));
    turns.wait(() => {
      ran.push('c');
      turns.wait(() => ran.push('c again'));
    });
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual(['a']);
    await nextTurn();
    expect(ran).toEqual(['a', 'b']);
    await nextTurn();
    await nextTurn();
    expect(ran).toEqual(['a', 'b', 'c', 'c again']);
    await nextTurn();
    expect(ran).toHaveLength(4);
  });
});
