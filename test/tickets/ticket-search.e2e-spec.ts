import { randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { CreateTicketWords1763900015000 } from '../../src/database/migrations/1763900015000-CreateTicketWords.js';
import { OutboxWriter } from '../../src/outbox/outbox.writer.js';
import { prefixWordCountSql, SEARCH_PREFIX_MAX_WORDS } from '../../src/tickets/query/search-prefix-bound.js';
import { SEARCH_MAX_PREFIXES } from '../../src/tickets/query/ticket-query.js';
import { updateTicketWords } from '../../src/tickets/query/ticket-words.js';
import { expectProblem } from '../support/problem-json.js';
import { expectSpringError } from '../support/spring-error.js';
import { asHttpResponse } from '../support/supertest-response.js';
import { createTestApp, useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { type ApiVersion, listTickets, walkPages } from '../support/ticket-lists.js';
import { useOwnDatabase } from '../support/database.js';

/*
 * Full-text search through the word index (ticket_words): what a word matches, prefixes, and the index kept in
 * step with every write of a ticket, in the write's transaction. Each run's tickets carry a word of their own
 * (and an assignee of their own), so other tickets never interfere.
 */
describe('Full-text search', () => {
  const testApp = useTestApp();
  const tag = `srch${randomBytes(4).toString('hex')}`;
  const db = () => testApp.app.get(DataSource);
  const t: Record<string, Record<string, any>> = {};
  const create = async (title: string, description: string) => {
    const ticket = (
      await testApp.http
        .post('/api/tickets')
        .send(buildTicketRequest({ title, description, assignedTo: tag }))
        .expect(201)
    ).body;
    // Distinct creation times, so that createdAt orders them as created.
    await new Promise((resolve) => setTimeout(resolve, 3));
    return ticket;
  };
  const words = async (id: number) =>
    ((await db().query('SELECT word FROM ticket_words WHERE ticket_id = ? ORDER BY word', [id])) as Array<{ word: string }>).map(
      (row) => row.word,
    );
  const ids = (...names: string[]) => names.map((name) => t[name].id);

  beforeAll(async () => {
    t.jams = await create('Printer jams in the annex', `Paper stuck, ${tag}`);
    t.printers = await create('Printers offline', `All of them, ${tag}`);
    t.cafe = await create('Café printer', `Déjà vu: the cafe PRINTER again, ${tag}`);
    t.long = await create(`Error ${'x'.repeat(70)}`, `Under_score ERR_42 ${tag}`);
  });

  it('indexes each word of title and description once, lower-cased, without short words and stop words', async () => {
    expect(await words(t.jams.id)).toEqual(['annex', 'jams', 'paper', 'printer', tag, 'stuck'].sort());
    // "Café" and "cafe" are one word under the collation: one row, and the create did not fail on it.
    expect(await words(t.cafe.id)).toEqual(expect.arrayContaining(['again', 'déjà', 'printer', tag]));
    expect((await words(t.cafe.id)).filter((word) => ['café', 'cafe'].includes(word))).toHaveLength(1);
    expect(await words(t.long.id)).toEqual(['err_42', 'error', tag, 'under_score', 'x'.repeat(64)].sort());
  });

  describe.each<ApiVersion>(['v1', 'v2'])('%s', (version) => {
    const search = async (q: string, more = '') =>
      (await listTickets(testApp.http, version, `assignedTo=${tag}&q=${encodeURIComponent(q)}${more}`)).ids;

    it.each([
      ['printer', ['jams', 'cafe']],
      ['PRINTER', ['jams', 'cafe']],
      ['print', []],
      ['printer*', ['jams', 'printers', 'cafe']],
      ['print*', ['jams', 'printers', 'cafe']],
      ['print* jams', ['jams']],
      ['printer café', ['cafe']],
      ['CAFE deja', ['cafe']],
      ['caf*', ['cafe']],
      ['the printer in annex', ['jams']],
      ['is on to', []],
      ['pr* printer', ['jams', 'cafe']],
      ['printer xyzzy', []],
      ['under_score', ['long']],
      ['under*', ['long']],
      ['err_4*', ['long']],
      ['err%4*', []],
      ['___*', []],
      ['x'.repeat(70), ['long']],
      ['x'.repeat(64), ['long']],
      ['x'.repeat(63), []],
    ])('q=%s', async (q, expected) => {
      expect(await search(q)).toEqual(ids(...expected));
    });

    it('never lets what a client types become an operator or break the statement', async () => {
      for (const q of [
        `printer" OR 1=1; -- (jams)`,
        `+printer -jams ~annex <x> @2`,
        `*printer* **`,
        `'; DROP TABLE ticket_words; --`,
        '%',
        '\\',
        `printer\\* jams`,
      ]) {
        const answer = await testApp.http.get(`/api/${version === 'v2' ? 'v2/' : ''}tickets?assignedTo=${tag}&q=${encodeURIComponent(q)}`);
        expect({ q, status: answer.status }).toEqual({ q, status: 200 });
      }
      expect(await search(`printer" OR 1=1; -- (jams)`)).toEqual(ids('jams'));
      expect(await search('*printer* **')).toEqual(ids('jams', 'printers', 'cafe'));
    });

    it('pages a search by cursor in either id order, and in another sort, with the total', async () => {
      const q = `assignedTo=${tag}&q=${tag}&limit=1`;
      expect(await walkPages(testApp.http, version, q)).toEqual([ids('jams'), ids('printers'), ids('cafe'), ids('long')]);
      expect(await walkPages(testApp.http, version, `${q}&sort=-id`)).toEqual([ids('long'), ids('cafe'), ids('printers'), ids('jams')]);
      expect((await walkPages(testApp.http, version, `${q.replace('limit=1', 'limit=2')}&sort=-createdAt`)).flat()).toEqual(
        ids('long', 'cafe', 'printers', 'jams'),
      );
      expect((await listTickets(testApp.http, version, `${q}&total=true`)).total).toBe(4);
      expect((await listTickets(testApp.http, version, `assignedTo=${tag}&q=print*&limit=1&total=true`)).total).toBe(3);
      expect((await listTickets(testApp.http, version, `q=print*%20${tag}&limit=1&total=true`)).total).toBe(3);
      expect((await listTickets(testApp.http, version, `q=printer%20${tag}&limit=1&total=true`)).total).toBe(2);
    });
  });

  describe('a prefix that matches too many words', () => {
    // SEARCH_PREFIX_MAX_WORDS + 1 words of this run's own, `<tag>w0000` to `<tag>w1000`, on one ticket: `<tag>w*`
    // matches one too many, `<tag>w00*` a hundred of them.
    const stem = () => `${tag}w`;
    beforeAll(async () => {
      await db().query(
        `INSERT INTO ticket_words (word, ticket_id) SELECT CONCAT(?, LPAD(seq, 4, '0')), ? FROM seq_0_to_${SEARCH_PREFIX_MAX_WORDS}`,
        [stem(), t.printers.id],
      );
    });
    afterAll(async () => {
      await db().query('DELETE FROM ticket_words WHERE ticket_id = ? AND word LIKE ?', [t.printers.id, `${stem()}%`]);
    });

    it(`answers 400 naming q and the prefix in v1 and v2, and searches a longer prefix (at most ${SEARCH_PREFIX_MAX_WORDS} words)`, async () => {
      const q = `printer ${stem()}* ${stem()}00*`;
      const message = `The prefix ${stem()}* matches more than ${SEARCH_PREFIX_MAX_WORDS} words; make it longer`;
      const v1 = expectSpringError(asHttpResponse(await testApp.http.get(`/api/tickets?q=${encodeURIComponent(q)}`)), 400, '/api/tickets');
      expect(v1.errors).toEqual([
        expect.objectContaining({ field: 'q', code: 'SearchTooBroad', defaultMessage: message, rejectedValue: q }),
      ]);
      const v2 = expectProblem(
        asHttpResponse(await testApp.http.get(`/api/v2/tickets?q=${encodeURIComponent(q)}`)),
        400,
        '/api/v2/tickets',
      );
      expect(v2.errors).toEqual([{ field: 'q', code: 'SearchTooBroad', message, rejectedValue: q }]);

      for (const version of ['v1', 'v2'] as const) {
        expect((await listTickets(testApp.http, version, `q=${encodeURIComponent(`${stem()}00*`)}`)).ids).toEqual(ids('printers'));
        expect((await listTickets(testApp.http, version, `q=${encodeURIComponent(`${stem()}1000*`)}&limit=5&total=true`)).total).toBe(1);
      }
    });

    it('counts the words of a prefix from a range of the primary key alone, without reading a ticket', async () => {
      // With many tickets a word, the plan is a loose scan (`Using index for group-by`: one entry per word); with
      // as few as here, a plain index range costs the optimizer less. Either way only the index is read.
      const counting = prefixWordCountSql([{ word: stem(), prefix: true }])!;
      const plan: Array<{ table: string; type: string; key: string; Extra: string }> = await db().query(
        `EXPLAIN ${counting.sql}`,
        counting.params,
      );
      const words = plan.filter((row) => row.table === 'ticket_words');
      expect(words).toEqual([expect.objectContaining({ type: 'range', key: 'PRIMARY', Extra: expect.stringContaining('Using index') })]);
    });

    it(`answers 400 to more than ${SEARCH_MAX_PREFIXES} prefix words in one search`, async () => {
      const prefixes = Array.from({ length: SEARCH_MAX_PREFIXES + 1 }, (_, i) => `pre${i}*`);
      const q = prefixes.join(' ');
      const v2 = expectProblem(
        asHttpResponse(await testApp.http.get(`/api/v2/tickets?q=${encodeURIComponent(q)}`)),
        400,
        '/api/v2/tickets',
      );
      expect(v2.errors).toEqual([expect.objectContaining({ field: 'q', code: 'SearchTooBroad', rejectedValue: q })]);
      expect((await testApp.http.get(`/api/tickets?q=${encodeURIComponent(prefixes.slice(1).join(' '))}`)).status).toBe(200);
    });
  });

  it('finds a ticket by its new words after a PUT or a PATCH of title or description, and no longer by the old ones', async () => {
    const ticket = await create(`Scanner broken ${tag}`, 'Glass cracked');
    const found = async (q: string) =>
      (await listTickets(testApp.http, 'v2', `q=${encodeURIComponent(`${q} ${tag}`)}`)).ids.includes(ticket.id);
    expect(await found('scanner')).toBe(true);

    await testApp.http
      .put(`/api/tickets/${ticket.id}`)
      .send(buildTicketRequest({ title: `Plotter broken ${tag}`, description: 'Glass cracked', assignedTo: tag }))
      .expect(200);
    expect([await found('scanner'), await found('plotter'), await found('glass')]).toEqual([false, true, true]);

    await testApp.http
      .patch(`/api/tickets/${ticket.id}`)
      .set('Content-Type', 'application/merge-patch+json')
      .send({ description: 'Roller worn' })
      .expect(200);
    expect([await found('glass'), await found('roller'), await found('plotter')]).toEqual([false, true, true]);
    expect(await words(ticket.id)).toEqual(['broken', 'plotter', tag, 'roller', 'worn'].sort());

    // "Café" and "cafe" are one row: an update that drops one spelling and keeps the other keeps the word.
    await testApp.http
      .patch(`/api/tickets/${ticket.id}`)
      .set('Content-Type', 'application/merge-patch+json')
      .send({ title: `Café broken ${tag}`, description: 'cafe roller' })
      .expect(200);
    await testApp.http
      .patch(`/api/tickets/${ticket.id}`)
      .set('Content-Type', 'application/merge-patch+json')
      .send({ title: `Plotter broken ${tag}`, description: 'Cafe roller worn' })
      .expect(200);
    expect(await found('cafe')).toBe(true);
    await testApp.http
      .patch(`/api/tickets/${ticket.id}`)
      .set('Content-Type', 'application/merge-patch+json')
      .send({ description: 'Roller worn' })
      .expect(200);
    expect(await found('cafe')).toBe(false);
    // A write that leaves title and description as they were does not touch the words.
    await testApp.http
      .patch(`/api/tickets/${ticket.id}`)
      .set('Content-Type', 'application/merge-patch+json')
      .send({ status: 'RESOLVED' })
      .expect(200);
    expect(await words(ticket.id)).toEqual(['broken', 'plotter', tag, 'roller', 'worn'].sort());
  });

  it("locks only the rows of the words an update loses: other tickets' words can be written meanwhile", async () => {
    const losing = await create(`Scanner lost ${tag}`, 'Feeds nothing');
    const other = await create(`Monitor flickers ${tag}`, 'Blinks');
    const runner = db().createQueryRunner();
    const elsewhere = db().createQueryRunner();
    await runner.connect();
    await elsewhere.connect();
    try {
      await runner.query('START TRANSACTION');
      // One word lost, as a PUT that changes one word of the title: its row alone is locked until COMMIT.
      await updateTicketWords(runner, losing.id, losing, { ...losing, title: `Scanner ${tag}` });
      await elsewhere.query('SET SESSION innodb_lock_wait_timeout = 1');
      await elsewhere.query('INSERT INTO ticket_words (word, ticket_id) VALUES (?, ?), (?, ?)', ['aardvark', other.id, 'zzzz', other.id]);
      await runner.query('ROLLBACK');
      expect(await words(losing.id)).toEqual(['feeds', 'lost', 'nothing', 'scanner', tag].sort());
    } finally {
      await elsewhere.query('DELETE FROM ticket_words WHERE ticket_id = ? AND word IN (?, ?)', [other.id, 'aardvark', 'zzzz']);
      await runner.release();
      await elsewhere.release();
    }
  });

  it('deletes the words with their ticket', async () => {
    const ticket = await create(`Monitor dead ${tag}`, 'No signal');
    expect(await words(ticket.id)).not.toEqual([]);
    await testApp.http.delete(`/api/tickets/${ticket.id}`).expect(204);
    expect(await words(ticket.id)).toEqual([]);
  });

  it('leaves nothing of a write whose statement fails in the database after others sent with it (create and update)', async () => {
    const marker = `dbfail${randomBytes(4).toString('hex')}`;
    const ticket = await create(`Dock flickers ${tag}`, 'Second screen');
    const before = await words(ticket.id);
    // The outbox insert goes out in one round trip with the words and the history entry; here it fails in MariaDB.
    const record = jest.spyOn(testApp.app.get(OutboxWriter), 'record').mockImplementation(async (manager) => {
      await manager.query('INSERT INTO no_such_table (id) VALUES (?)', [1]);
    });
    try {
      await testApp.http
        .post('/api/tickets')
        .send(buildTicketRequest({ title: `Never ${marker}` }))
        .expect(500);
      await testApp.http
        .put(`/api/tickets/${ticket.id}`)
        .send(buildTicketRequest({ title: `Never ${marker}`, description: 'never' }))
        .expect(500);
    } finally {
      record.mockRestore();
    }
    const count = async (sql: string) => Number((await db().query(sql, [marker]))[0].n);
    expect(await count('SELECT COUNT(*) AS n FROM ticket_words WHERE word = ?')).toBe(0);
    expect(await count("SELECT COUNT(*) AS n FROM tickets WHERE title LIKE CONCAT('%', ?)")).toBe(0);
    expect(await count("SELECT COUNT(*) AS n FROM ticket_history WHERE changes LIKE CONCAT('%', ?, '%')")).toBe(0);
    expect(await words(ticket.id)).toEqual(before);
    expect((await testApp.http.get(`/api/tickets/${ticket.id}`).expect(200)).body.title).toBe(`Dock flickers ${tag}`);
  });

  it('leaves no words of a write whose transaction fails (create and update)', async () => {
    const marker = `fail${randomBytes(4).toString('hex')}`;
    const ticket = await create(`Headset crackles ${tag}`, 'Left ear');
    const before = await words(ticket.id);
    const record = jest.spyOn(testApp.app.get(OutboxWriter), 'record').mockRejectedValue(new Error('outbox insert failed'));
    try {
      await testApp.http
        .post('/api/tickets')
        .send(buildTicketRequest({ title: `Never ${marker}` }))
        .expect(500);
      await testApp.http
        .put(`/api/tickets/${ticket.id}`)
        .send(buildTicketRequest({ title: `Never ${marker}`, description: 'never' }))
        .expect(500);
    } finally {
      record.mockRestore();
    }
    expect(Number((await db().query('SELECT COUNT(*) AS n FROM ticket_words WHERE word = ?', [marker]))[0].n)).toBe(0);
    expect(await words(ticket.id)).toEqual(before);
  });
});

const database = useOwnDatabase('words');

/*
 * The migration that brings the word index to a database whose tickets already exist: taken down (the FULLTEXT
 * index back, no word table) and up again on a database of its own, it indexes every ticket by the same rules.
 */
describe('Migration CreateTicketWords', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp({ env: { DB_DATABASE: database } });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('indexes the existing tickets, 200 at a time, and its down restores the FULLTEXT index', async () => {
    const db = app.get(DataSource);
    const migration = new CreateTicketWords1763900015000();
    const runner = db.createQueryRunner();
    try {
      await migration.down(runner);
      const [fulltext] = await runner.query("SHOW INDEX FROM tickets WHERE Key_name = 'ftx_tickets_title_description'");
      expect(fulltext).toMatchObject({ Index_type: 'FULLTEXT' });
      await runner.query(`
        INSERT INTO tickets (title, description, status, priority, requester_email, created_at, updated_at)
        SELECT CONCAT('Printer ', seq), IF(seq % 2 = 0, 'Café jams', 'The cafe is on fire'), 'OPEN', 'LOW', 'a@b.c', NOW(3), NOW(3)
        FROM seq_1_to_450`);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const count = async (sql: string) => Number((await db.query(sql))[0].n);
    expect(await db.query("SHOW INDEX FROM tickets WHERE Key_name = 'ftx_tickets_title_description'")).toEqual([]);
    expect(await count("SELECT COUNT(*) AS n FROM ticket_words WHERE word = 'printer'")).toBe(450);
    expect(await count("SELECT COUNT(*) AS n FROM ticket_words WHERE word = 'cafe'")).toBe(450);
    expect(await count("SELECT COUNT(*) AS n FROM ticket_words WHERE word = 'jams'")).toBe(225);
    // "Printer 123": numbers of three digits are words too; "is", "on", "the" are stop words.
    expect(await count("SELECT COUNT(*) AS n FROM ticket_words WHERE word IN ('is', 'on', 'the', '12')")).toBe(0);
    const answer = await request(app.getHttpServer()).get('/api/v2/tickets?q=printer%20jams&limit=1').expect(200);
    expect(answer.body.total).toBe(225);
  });
});
