import type { Queryable } from './statement-batch.js';

/**
 * A statement and what its answer means, so that several can share one round trip (readTogether): a read's rows, or a
 * write's result (its `insertId`, `affectedRows`).
 */
export interface RowsRead<T> {
  sql: string;
  params: unknown[];
  from(answer: unknown): T;
}

export type ReadResults<R extends ReadonlyArray<RowsRead<unknown>>> = { [K in keyof R]: R[K] extends RowsRead<infer T> ? T : never };

/**
 * What each read finds, in one round trip: the server runs the statements in turn, so a read placed after a row lock
 * sees what the lock protects. A round trip costs both processes a system call and a wake-up, more than a statement
 * reading a ticket's few rows by key.
 */
export async function readTogether<R extends ReadonlyArray<RowsRead<unknown>>>(manager: Queryable, ...reads: R): Promise<ReadResults<R>> {
  const sent = reads.filter(({ sql }) => sql !== '');
  const answered =
    sent.length === 0
      ? []
      : ((await manager.query(
          sent.map(({ sql }) => sql).join(';\n'),
          sent.flatMap(({ params }) => params),
        )) as unknown[]);
  // One statement answers its rows (or a write's result), several the list of each one's.
  const results = sent.length === 1 ? [answered] : (answered as unknown[]);
  let next = 0;
  return reads.map((read) => read.from(read.sql === '' ? [] : results[next++])) as ReadResults<R>;
}

/** The rows' `value`s listed under each row's ticket, in the rows' order (a ticket without any is absent). */
export function listedByTicket<R extends { ticket_id: string | number }>(
  rows: readonly R[],
  value: (row: R) => string,
): Map<number, string[]> {
  const listed = new Map<number, string[]>();
  for (const row of rows) {
    const id = Number(row.ticket_id);
    const values = listed.get(id);
    if (values) values.push(value(row));
    else listed.set(id, [value(row)]);
  }
  return listed;
}

/** A read that needs no statement: it finds `value`. */
export function known<T>(value: T): RowsRead<T> {
  return { sql: '', params: [], from: () => value };
}
