import fc from 'fast-check';
import { Readable } from 'node:stream';
import { importLine, importTimes, lineProblems } from './import-line.js';
import { type BodyLine, bodyLines } from './ndjson-lines.js';
import { TicketPriority } from '../tickets/ticket-priority.enum.js';
import { TicketStatus } from '../tickets/ticket-status.enum.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const ticket = {
  title: 'Printer jams',
  description: 'On every page',
  status: TicketStatus.OPEN,
  priority: TicketPriority.LOW,
  requesterEmail: 'dana@example.com',
  assignedTo: null,
  ccEmails: [],
  tags: [],
};
const time = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: NOW, noInvalidDate: true }).map((date) => date.toISOString());
const status = fc.constantFrom(...Object.values(TicketStatus));

describe('an import line', () => {
  it('names every problem of its own members at once', () => {
    const problems = lineProblems(
      {
        externalId: ' ',
        colour: 'red',
        status: 'OPEN',
        createdAt: '2024-03-01 09:00',
        updatedAt: '2030-01-01T00:00:00Z',
        resolvedAt: '2024-03-01T09:00:00Z',
        comments: [
          { body: 'x', createdAt: '2024-03-01T09:00:00Z', externalId: 'a' },
          { body: ' ', externalId: 'a', extra: 1 },
        ],
      },
      NOW,
    );
    expect(problems.map((problem) => problem.field)).toEqual([
      'colour',
      'externalId',
      'createdAt',
      'updatedAt',
      'resolvedAt',
      'comments[1].extra',
      'comments[1].body',
      'comments[1].createdAt',
      'comments[1].externalId',
    ]);
  });

  it('refuses times out of order, and a resolution of a ticket that is not resolved', () => {
    const fields = (problems: Array<{ field: string }>) => problems.map((problem) => problem.field);
    const base = { externalId: 'x', status: 'RESOLVED', createdAt: '2024-03-02T00:00:00Z' };
    expect(fields(lineProblems({ ...base, updatedAt: '2024-03-01T00:00:00Z' }, NOW))).toEqual(['updatedAt']);
    expect(fields(lineProblems({ ...base, resolvedAt: '2024-03-01T00:00:00Z' }, NOW))).toEqual(['resolvedAt']);
    expect(fields(lineProblems({ ...base, updatedAt: '2024-03-03T00:00:00Z', resolvedAt: '2024-03-04T00:00:00Z' }, NOW))).toEqual([
      'resolvedAt',
    ]);
    expect(fields(lineProblems({ ...base, status: 'OPEN', resolvedAt: '2024-03-03T00:00:00Z' }, NOW))).toEqual(['resolvedAt']);
    expect(lineProblems({ ...base, resolvedAt: '2024-03-03T00:00:00+01:00' }, NOW)).toEqual([]);
  });

  it('has times created ≤ resolved ≤ updated, whichever it gives, when it has no problem (property)', () => {
    fc.assert(
      fc.property(
        fc.record({ createdAt: fc.option(time), updatedAt: fc.option(time), resolvedAt: fc.option(time) }),
        status,
        fc.array(time, { maxLength: 4 }),
        fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: NOW, noInvalidDate: true }),
        (times, status, commentTimes, receivedAt) => {
          const given = Object.fromEntries(Object.entries(times).filter(([, value]) => value !== null));
          const raw = { externalId: 'x', status, ...given, comments: commentTimes.map((createdAt) => ({ body: 'b', createdAt })) };
          fc.pre(lineProblems(raw, NOW).length === 0);
          const line = importLine(raw, { ...ticket, status });
          const { createdAt, updatedAt, resolvedAt } = importTimes(line, receivedAt);
          expect(createdAt.getTime()).toBeLessThanOrEqual(updatedAt.getTime());
          if (resolvedAt) {
            expect(createdAt.getTime()).toBeLessThanOrEqual(resolvedAt.getTime());
            expect(resolvedAt.getTime()).toBeLessThanOrEqual(updatedAt.getTime());
          }
          expect(resolvedAt !== null).toBe(status === TicketStatus.RESOLVED || status === TicketStatus.CLOSED);
          for (const [name, value] of Object.entries(given))
            expect(importTimes(line, receivedAt)[name as 'createdAt'].getTime()).toBe(Date.parse(value!));
        },
      ),
    );
  });

  it('hashes what it says, not how it says it: the same line in another order or offset is the same, a changed one is not (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (body, other) => {
        const raw = {
          externalId: 'zd-1',
          createdAt: '2024-03-01T10:00:00+01:00',
          fields: { b: 1, a: 'x' },
          comments: [{ body, createdAt: '2024-03-01T09:00:00Z' }],
        };
        const reordered = {
          comments: [{ createdAt: '2024-03-01T10:00:00+01:00', body }],
          fields: { a: 'x', b: 1 },
          createdAt: '2024-03-01T09:00:00Z',
          externalId: 'zd-1',
        };
        const line = importLine(raw, ticket);
        expect(importLine(reordered, ticket).hash).toBe(line.hash);
        // A comment without an externalId is known by its time, author and text.
        expect(importLine(reordered, ticket).comments[0].key).toBe(line.comments[0].key);
        fc.pre(other !== body);
        const changed = importLine({ ...raw, comments: [{ body: other, createdAt: '2024-03-01T09:00:00Z' }] }, ticket);
        expect(changed.hash).not.toBe(line.hash);
        expect(changed.comments[0].key).not.toBe(line.comments[0].key);
      }),
    );
  });
});

describe('the lines of a body', () => {
  const linesOf = async (chunks: Buffer[], max: number) => {
    const lines = [];
    for await (const line of bodyLines(Readable.from(chunks), max)) lines.push(line);
    return lines;
  };

  it('are the same however the body is cut into chunks, numbered from 1, blank ones skipped, long ones reported (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constant(''),
            fc.string({ unit: 'grapheme', maxLength: 12 }).map((text) => text.replaceAll('\n', ' ')),
          ),
          {
            maxLength: 12,
          },
        ),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (texts, crlf, cuts) => {
          const body = Buffer.from(texts.join(crlf ? '\r\n' : '\n'));
          const at = [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at].map((from, i, all) => body.subarray(from, all[i + 1] ?? body.length));
          const max = 20;
          const expected = texts.flatMap((text, i): BodyLine[] => {
            const raw = crlf && i < texts.length - 1 ? `${text}\r` : text;
            if (Buffer.byteLength(raw) > max) return [{ number: i + 1, tooLong: true }];
            const stripped = raw.replace(/\r$/, '');
            return stripped.trim() === '' ? [] : [{ number: i + 1, text: stripped }];
          });
          expect(await linesOf(chunks, max)).toEqual(expected);
        },
      ),
    );
  });

  it('never holds more of a line than its bound', async () => {
    const huge = Buffer.alloc(10_000_000, 'x');
    expect(await linesOf([huge, Buffer.from('\n{"a":1}\n')], 1000)).toEqual([
      { number: 1, tooLong: true },
      { number: 2, text: '{"a":1}' },
    ]);
  });
});
