import { EndOfRound } from './end-of-round.js';

interface Waiter<Row> {
  resolve(row: Row | undefined): void;
  reject(error: unknown): void;
}

/**
 * Rows looked up by key for many requests with one statement: the keys asked for while the event loop handles one
 * round of I/O are read together right after it (`WHERE id IN (…)`), up to `maxKeys` a statement. Under load, one
 * statement then serves every request that arrived in that round, and the database's round trip, the most costly
 * part of a read by key, is paid once for all of them; a lone request waits for nothing (the statement goes out
 * when the round ends, before any timer). Each caller gets the row as of a statement that started after it asked.
 * The statement runs in no request's context: it belongs to all of its callers, each of which keeps its own
 * deadline (see Database.withinDeadline) while it waits.
 */
export class BatchedLookup<Row> {
  private pending = new Map<string, Array<Waiter<Row>>>();
  private readonly endOfRound = new EndOfRound(() => this.flush());

  constructor(
    /** Reads the rows of `keys`; a key without a row is simply absent from the result. */
    private readonly load: (keys: string[]) => Promise<Map<string, Row>>,
    private readonly maxKeys = 100,
  ) {}

  get(key: string): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.pending.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.pending.set(key, [{ resolve, reject }]);
      this.endOfRound.request();
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = new Map();
    const keys = [...batch.keys()];
    for (let start = 0; start < keys.length; start += this.maxKeys) this.read(keys.slice(start, start + this.maxKeys), batch);
  }

  private read(keys: string[], batch: Map<string, Array<Waiter<Row>>>): void {
    this.load(keys).then(
      (rows) => {
        for (const key of keys) for (const waiter of batch.get(key)!) waiter.resolve(rows.get(key));
      },
      (error: unknown) => {
        for (const key of keys) for (const waiter of batch.get(key)!) waiter.reject(error);
      },
    );
  }
}
