import { javaDouble, micrometerTimerBuckets } from './micrometer-buckets.js';

describe('micrometerTimerBuckets', () => {
  const buckets = micrometerTimerBuckets();

  it("starts at 1 ms and ends at 30 s, with Micrometer's boundaries in between", () => {
    expect(buckets.slice(0, 5)).toEqual([0.001, 0.001048576, 0.001398101, 0.001747626, 0.002097151]);
    expect(buckets.slice(-3)).toEqual([22.906492245, 28.633115306, 30]);
  });

  it('is strictly ascending', () => {
    expect(buckets.every((value, index) => index === 0 || value > buckets[index - 1])).toBe(true);
  });
});

describe('javaDouble', () => {
  it('writes whole numbers with ".0" and infinity as +Inf, as Micrometer writes le', () => {
    expect([javaDouble(30), javaDouble(0.001048576), javaDouble(Infinity)]).toEqual(['30.0', '0.001048576', '+Inf']);
  });
});
