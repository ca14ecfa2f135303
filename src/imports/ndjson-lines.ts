/** A line of a body: its number (from 1) and its text, or that it was longer than the bound (its text then dropped). */
export type BodyLine = { number: number; text: string } | { number: number; tooLong: true };

/**
 * The lines of a streamed body, each decoded as UTF-8 without its `\n` (or `\r\n`); blank lines are numbered but not
 * given. Written here rather than with node:readline, which holds a line of any length: a line past `maxBytes` is
 * reported as too long and skipped to its end, so a body without newlines never grows the memory it takes.
 */
export async function* bodyLines(body: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<BodyLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  let number = 0;
  const line = function* (): Generator<BodyLine> {
    number += 1;
    const wasSkipping = skipping;
    const text = Buffer.concat(parts).toString('utf8').replace(/\r$/, '');
    parts = [];
    size = 0;
    skipping = false;
    if (wasSkipping) yield { number, tooLong: true };
    else if (text.trim() !== '') yield { number, text };
  };
  for await (const chunk of body) {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let end = data.indexOf(10); ; end = data.indexOf(10)) {
      const piece = end < 0 ? data : data.subarray(0, end);
      if (!skipping && size + piece.length > maxBytes) {
        skipping = true;
        parts = [];
      }
      if (!skipping) {
        parts.push(piece);
        size += piece.length;
      }
      if (end < 0) break;
      yield* line();
      data = data.subarray(end + 1);
    }
  }
  if (size > 0 || skipping) yield* line();
}
