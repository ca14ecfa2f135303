import { takeInTurn } from './webhook-dispatcher.js';

const due = (webhookId: number, ...ids: number[]) => ids.map((id) => ({ id, webhookId }));

describe('the due deliveries a poll claims', () => {
  it('takes one of each endpoint in turn, each endpoint oldest first, up to the free slots', () => {
    const backlog = [...due(1, 10, 11, 12, 13, 14, 15), ...due(2, 20), ...due(3, 30, 31)];
    expect(takeInTurn(backlog, 4)).toEqual([10, 20, 30, 11]);
    expect(takeInTurn(backlog, 100)).toEqual([10, 20, 30, 11, 31, 12, 13, 14, 15]);
  });

  it('starts with another endpoint each turn when there are fewer slots than endpoints', () => {
    const backlog = [...due(1, 10, 11), ...due(2, 20), ...due(3, 30)];
    expect([0, 1, 2, 3].map((turn) => takeInTurn(backlog, 1, turn))).toEqual([[10], [20], [30], [10]]);
  });

  it('takes nothing when nothing is due or no slot is free', () => {
    expect(takeInTurn([], 4)).toEqual([]);
    expect(takeInTurn(due(1, 10), 0)).toEqual([]);
  });
});
