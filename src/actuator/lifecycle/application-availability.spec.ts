import { ApplicationAvailability } from './application-availability.js';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('ApplicationAvailability', () => {
  it('refuses traffic until the application has started', () => {
    const availability = new ApplicationAvailability();
    expect(availability.readiness).toBe('REFUSING_TRAFFIC');
    availability.onApplicationBootstrap();
    expect(availability.readiness).toBe('ACCEPTING_TRAFFIC');
  });

  it('refuses traffic while start-up work it did not wait for runs, and accepts it once that has finished', async () => {
    const availability = new ApplicationAvailability();
    const work = deferred();
    availability.refuseTrafficUntil(work.promise);
    availability.onApplicationBootstrap();
    expect(availability.readiness).toBe('REFUSING_TRAFFIC');
    work.resolve();
    await work.promise;
    expect(availability.readiness).toBe('ACCEPTING_TRAFFIC');
  });

  it('accepts traffic once such work has failed too', async () => {
    const availability = new ApplicationAvailability();
    const work = deferred();
    availability.onApplicationBootstrap();
    availability.refuseTrafficUntil(work.promise);
    work.reject(new Error('failed'));
    await work.promise.catch(() => undefined);
    expect(availability.readiness).toBe('ACCEPTING_TRAFFIC');
  });

  it('refuses traffic for good once the shutdown has begun, whatever start-up work settles after', async () => {
    const availability = new ApplicationAvailability();
    const work = deferred();
    availability.onApplicationBootstrap();
    availability.refuseTrafficUntil(work.promise);
    availability.refuseTraffic();
    work.resolve();
    await work.promise;
    expect(availability.readiness).toBe('REFUSING_TRAFFIC');
  });
});
