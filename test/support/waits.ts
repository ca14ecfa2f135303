/** Polls `condition` every 50 ms until it holds; fails naming `what` once `timeoutMs` has passed. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Polls `finished` every 50 ms until it holds; fails naming `what` only once `progress` (a count that grows, or a
 * description of the state that changes, while the work goes on) has not changed for `stallMs`. `progress` is asked
 * right after each `finished`. For long work whose speed depends on the machine's load: a test asserts
 * that the work goes on to its end, not how fast (that is the benchmark's).
 */
export async function waitWhileProgressing(
  finished: () => Promise<boolean>,
  progress: () => Promise<number | string>,
  stallMs: number,
  what: string,
): Promise<void> {
  let last = await progress();
  let movedAt = Date.now();
  while (!(await finished())) {
    const now = await progress();
    if (now !== last) [last, movedAt] = [now, Date.now()];
    else if (Date.now() - movedAt > stallMs) throw new Error(`${what}: no progress for ${stallMs} ms (at ${now})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
