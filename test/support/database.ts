import { type Connection, type ConnectionOptions, createConnection } from 'mysql2/promise';

/** A connection to the test run's MariaDB, to the run's database unless `options` names another (`database: undefined`: none). */
export function connectToDatabase(options: ConnectionOptions = {}): Promise<Connection> {
  return createConnection({
    host: process.env.DB_HOST ?? '127.0.0.1',
    port: Number(process.env.DB_PORT ?? 3306),
    user: process.env.DB_USERNAME ?? 'root',
    password: process.env.DB_PASSWORD ?? '',
    database: process.env.DB_DATABASE,
    ...options,
  });
}

/** Drops a database a suite made for itself. */
export async function dropDatabase(name: string): Promise<void> {
  const db = await connectToDatabase({ database: undefined });
  try {
    await db.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await db.end();
  }
}

/**
 * A database of the suite's own, for a suite that must not see what other suites leave in the worker's database
 * (or must not leave its settings' effects there). Named after the worker's database, so the run's teardown finds
 * it too; dropped after the suite. Call it at the top of the file, outside any describe: its drop then runs after
 * the describe blocks' own afterAll hooks have closed the services using it.
 */
export function useOwnDatabase(suffix: string): string {
  const name = `${process.env.DB_DATABASE}_${suffix}`;
  afterAll(() => dropDatabase(name));
  return name;
}

/** The lock a transaction waits for: its table (`database`.`table`, as InnoDB names it) and, for a row lock, the index. */
export interface LockWait {
  table: string;
  index?: string;
}

/**
 * The lock that the transaction of connection `threadId` (its CONNECTION_ID()) waits for now, undefined when it waits
 * for none; read from SHOW ENGINE INNODB STATUS, which InnoDB writes anew for every call. Not from
 * information_schema.innodb_trx (nor innodb_locks, innodb_lock_waits): InnoDB answers those from one copy for the
 * whole server, which it renews only once nobody has read it for 100 ms (CACHE_MIN_IDLE_TIME_NS in trx0i_s.cc).
 * Polled faster than that, or read meanwhile by any other session (another suite's polls), it goes on showing the
 * transactions of its first read: a wait that began after that read is never seen.
 */
export async function lockWaitOf(db: { query(sql: string): Promise<unknown> }, threadId: number): Promise<LockWait | undefined> {
  const [{ Status: status }] = (await db.query('SHOW ENGINE INNODB STATUS')) as Array<{ Status: string }>;
  // One entry per transaction, after the sections before the list (whose latest deadlock may name the same session):
  // "---TRANSACTION" on MariaDB, "---TRX" on MySQL, its session named as "<server> thread id N,".
  const entry = status
    .split(/^---(?:TRANSACTION|TRX) /m)
    .slice(1)
    .find((text) => new RegExp(`^(?:MariaDB|MySQL) thread id ${threadId},`, 'm').test(text));
  // A waiting transaction's lock follows this line: "RECORD LOCKS ... index PRIMARY of table `db`.`t` ... waiting",
  // or "TABLE LOCK table `db`.`t` ... waiting".
  const lock = entry && /^------- TRX HAS BEEN WAITING .*\n(.*)$/m.exec(entry)?.[1];
  if (!lock) return undefined;
  const table = /\btable (`[^`]+`\.`[^`]+`)/.exec(lock)?.[1] ?? lock;
  const index = /\bindex (\S+) of table\b/.exec(lock)?.[1];
  return index === undefined ? { table } : { table, index };
}

/**
 * `count` OPEN, LOW tickets of `requester`, written by one statement from MariaDB's SEQUENCE engine (titled `<title> <n>`,
 * each description `descriptionLength` characters, or `Seeded`): no events, history or search words, for suites that
 * measure what is done to many tickets rather than their creation.
 */
export async function seedTickets(
  db: Connection,
  requester: string,
  count: number,
  { title = 'Seeded', descriptionLength }: { title?: string; descriptionLength?: number } = {},
): Promise<void> {
  await db.query(
    `INSERT INTO tickets (title, description, status, priority, requester_email, created_at, updated_at)
     SELECT CONCAT(?, ' ', seq), ${descriptionLength ? `REPEAT('x', ${Number(descriptionLength)})` : "'Seeded'"}, 'OPEN', 'LOW', ?, NOW(3), NOW(3)
     FROM seq_1_to_${Number(count)}`,
    [title, requester],
  );
}
