import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { PeriodicWorker } from './periodic-worker.js';

/** A pass the test ends by hand: `release()` ends the one in progress. */
function controllablePasses(answers: Array<boolean | Error> = []) {
  const started: number[] = [];
  let release: (() => void) | undefined;
  const pass = async () => {
    started.push(Date.now());
    await new Promise<void>((resolve) => (release = resolve));
    const answer = answers.shift();
    if (answer instanceof Error) throw answer;
    return answer ?? false;
  };
  return {
    pass,
    started,
    release: async () => {
      release!();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('PeriodicWorker', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });
  /** Timers under the test's control; setImmediate stays real, to let passes run (tick). */
  const fakeTimers = () => jest.useFakeTimers({ doNotFake: ['setImmediate'] });

  it('runs a first pass when started, then one each interval after the last ended; woken before, one pass', async () => {
    fakeTimers();
    let passes = 0;
    const worker = new PeriodicWorker({ name: 'test', intervalMs: 30, pass: async () => void passes++ });
    worker.wake(); // before start: one pass, no schedule
    await tick();
    await jest.advanceTimersByTimeAsync(100);
    expect(passes).toBe(1);
    worker.start();
    await tick();
    expect(passes).toBe(2);
    await jest.advanceTimersByTimeAsync(29);
    expect(passes).toBe(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(passes).toBe(3);
    await jest.advanceTimersByTimeAsync(60);
    expect(passes).toBe(5);
    await worker.stop();
  });

  it('never loses a wake-up during a pass: any number of them runs exactly one more pass right after', async () => {
    const passes = controllablePasses();
    const worker = new PeriodicWorker({ name: 'test', intervalMs: 60_000, pass: passes.pass });
    worker.start();
    await tick();
    worker.wake();
    worker.wake();
    worker.wake();
    expect(passes.started).toHaveLength(1);
    await passes.release();
    expect(passes.started).toHaveLength(2);
    await passes.release();
    await tick();
    expect(passes.started).toHaveLength(2);
    await worker.stop();
  });

  it('lets a pass take a wake-up over itself, and runs at once again when a pass says more is waiting', async () => {
    const passes = controllablePasses([true]);
    const worker = new PeriodicWorker({ name: 'test', intervalMs: 60_000, pass: passes.pass });
    worker.start();
    await tick();
    worker.wake();
    expect(worker.takeWake()).toBe(true);
    expect(worker.takeWake()).toBe(false);
    await passes.release(); // answers true: more waiting
    expect(passes.started).toHaveLength(2);
    await passes.release();
    await tick();
    expect(passes.started).toHaveLength(2);
    await worker.stop();
  });

  it('on stop during a pass waits for it, and starts none after, woken or not', async () => {
    fakeTimers();
    const passes = controllablePasses();
    const worker = new PeriodicWorker({ name: 'test', intervalMs: 10, pass: passes.pass });
    worker.start();
    await tick();
    worker.wake();
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await tick();
    expect(stopped).toBe(false);
    await passes.release();
    await stopping;
    worker.wake();
    await jest.advanceTimersByTimeAsync(100);
    expect(passes.started).toHaveLength(1);
  });

  it('logs a pass that throws and carries on at its interval', async () => {
    fakeTimers();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const passes = controllablePasses([new Error('database away')]);
    const worker = new PeriodicWorker({ name: 'test', intervalMs: 20, pass: passes.pass });
    worker.start();
    await tick();
    await passes.release();
    expect(warn).toHaveBeenCalledWith('Pass failed, retrying at the next interval: database away');
    expect(passes.started).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(20);
    expect(passes.started).toHaveLength(2);
    await passes.release();
    await worker.stop();
  });
});
