import { randomBytes } from 'node:crypto';
import { useTestApp } from '../support/test-app.js';
import { buildTicketRequest } from '../support/ticket-factory.js';
import { type ApiVersion, COLLECTIONS, listTickets, walkPages } from '../support/ticket-lists.js';

/*
 * Filters, sorting, search and pages of GET /api/tickets (new optional parameters) and /api/v2/tickets.
 * Each run tags its tickets with an assignee of its own and filters by it, so other tickets never interfere.
 */
describe('Ticket queries', () => {
  const testApp = useTestApp();
  const tag = `queries-${randomBytes(4).toString('hex')}`;
  const mail = (name: string) => `${name}-${tag}@example.com`;
  const t: Record<string, Record<string, any>> = {};

  beforeAll(async () => {
    const specs: Array<[string, Record<string, unknown>]> = [
      [
        'printer',
        {
          status: 'OPEN',
          priority: 'LOW',
          requesterEmail: mail('ann'),
          title: 'Printer jams on floor three',
          description: 'Paper stuck in tray two',
        },
      ],
      [
        'vpn',
        {
          status: 'IN_PROGRESS',
          priority: 'CRITICAL',
          requesterEmail: mail('bob'),
          title: 'VPN disconnects hourly',
          description: 'The client drops the tunnel',
        },
      ],
      [
        'mail',
        { status: 'OPEN', priority: 'HIGH', requesterEmail: mail('ann'), title: 'Mailbox full', description: 'Outlook cannot send mail' },
      ],
      [
        'toner',
        {
          status: 'CLOSED',
          priority: 'MEDIUM',
          requesterEmail: mail('bob'),
          title: 'Printer toner empty',
          description: 'Replace the cartridge',
        },
      ],
      [
        'screen',
        {
          status: 'WAITING_ON_CUSTOMER',
          priority: 'HIGH',
          requesterEmail: mail('cid'),
          title: 'Laptop screen flickers',
          description: 'Since the driver update',
        },
      ],
      [
        'server',
        {
          status: 'RESOLVED',
          priority: 'CRITICAL',
          requesterEmail: mail('ann'),
          title: 'Server room too warm',
          description: 'Air conditioning failing',
        },
      ],
    ];
    for (const [name, fields] of specs) {
      t[name] = (
        await testApp.http
          .post('/api/tickets')
          .send(buildTicketRequest({ ...fields, assignedTo: tag }))
          .expect(201)
      ).body;
      // Distinct creation times, so that createdAt orders them as created.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    // The first ticket is updated last of all: the only one whose updatedAt is later than the others' createdAt.
    t.printer = (
      await testApp.http
        .put(`/api/tickets/${t.printer.id}`)
        .send(buildTicketRequest({ ...specs[0][1], assignedTo: tag }))
        .expect(200)
    ).body;
  });

  const ids = (...names: string[]) => names.map((name) => t[name].id);
  const enc = encodeURIComponent;

  describe.each<ApiVersion>(['v1', 'v2'])('%s', (version) => {
    const list = (query: string) => listTickets(testApp.http, version, `assignedTo=${tag}&${query}`);

    describe('filters', () => {
      it.each([
        ['priority=HIGH', ['mail', 'screen']],
        [`requesterEmail=${mail('ANN').toUpperCase()}`, ['printer', 'mail', 'server']],
        [`requesterEmail=${mail('ann')}&priority=CRITICAL`, ['server']],
        ['status=OPEN&priority=HIGH', ['mail']],
        ['q=printer', ['printer', 'toner']],
        ['q=PRINT', []],
        ['q=PRINT*', ['printer', 'toner']],
        ['q=printer toner', ['toner']],
        ['q=the cartridge', ['toner']],
        ['q=printer -toner', ['toner']],
        ['q=jam* print*', ['printer']],
        ['q=stuck printer&sort=-updatedAt', ['printer']],
        ['q=xyzzy', []],
        ['q=it is on', []],
        ['q=mail&status=OPEN&priority=HIGH', ['mail']],
        ['status=&priority=&q=', ['printer', 'vpn', 'mail', 'toner', 'screen', 'server']],
      ])('%s', async (query, expected) => {
        expect((await list(query)).ids).toEqual(ids(...expected));
      });

      it('matches assignedTo whole and case-insensitively', async () => {
        expect((await listTickets(testApp.http, version, `assignedTo=${tag.toUpperCase()}`)).ids).toEqual(
          ids('printer', 'vpn', 'mail', 'toner', 'screen', 'server'),
        );
        expect((await listTickets(testApp.http, version, `assignedTo=${tag.slice(0, -1)}`)).ids).toEqual([]);
      });

      it('takes createdAfter as inclusive and createdBefore as exclusive, to the millisecond', async () => {
        const answer = await list(`createdAfter=${t.mail.createdAt}&createdBefore=${t.screen.createdAt}`);
        expect(answer.ids).toEqual(ids('mail', 'toner'));
        const justAfter = new Date(Date.parse(t.mail.createdAt) + 1).toISOString();
        expect((await list(`createdAfter=${justAfter}&createdBefore=${t.screen.createdAt}`)).ids).toEqual(ids('toner'));
      });

      it('reads an instant with an offset, encoded or with the + left as a space', async () => {
        const at = new Date(Date.parse(t.mail.createdAt) + 2 * 3600_000).toISOString().replace('Z', '');
        expect((await list(`createdBefore=${enc(`${at}+02:00`)}`)).ids).toEqual(ids('printer', 'vpn'));
        expect((await list(`createdBefore=${at}+02:00`)).ids).toEqual(ids('printer', 'vpn'));
      });

      it('filters by updatedAfter and updatedBefore', async () => {
        expect((await list(`updatedAfter=${t.printer.updatedAt}`)).ids).toEqual(ids('printer'));
        expect((await list(`updatedBefore=${t.printer.updatedAt}`)).ids).toEqual(ids('vpn', 'mail', 'toner', 'screen', 'server'));
      });
    });

    describe('sorting', () => {
      it.each([
        ['priority', ['printer', 'toner', 'mail', 'screen', 'vpn', 'server']],
        ['-priority', ['server', 'vpn', 'screen', 'mail', 'toner', 'printer']],
        ['status', ['printer', 'mail', 'vpn', 'screen', 'server', 'toner']],
        ['-createdAt', ['server', 'screen', 'toner', 'mail', 'vpn', 'printer']],
        ['updatedAt', ['vpn', 'mail', 'toner', 'screen', 'server', 'printer']],
        ['-id', ['server', 'screen', 'toner', 'mail', 'vpn', 'printer']],
        ['priority,-createdAt', ['printer', 'toner', 'screen', 'mail', 'server', 'vpn']],
        ['-priority,id', ['vpn', 'server', 'mail', 'screen', 'toner', 'printer']],
      ])('sort=%s (priority by severity, status by workflow, ties by id)', async (sort, expected) => {
        expect((await list(`sort=${sort}`)).ids).toEqual(ids(...expected));
      });
    });

    describe('pages', () => {
      it('walks a sorted, filtered list page by page through Link headers, with the total on every page', async () => {
        const first = await list('sort=-priority&limit=2');
        expect(first.total).toBe(6);
        expect(first.response.headers.link).toMatch(
          /^<\/api\/(v2\/)?tickets\?assignedTo=.+&sort=-priority&limit=2&cursor=[\w.-]+>; rel="next"$/,
        );
        const pages = await walkPages(testApp.http, version, `assignedTo=${tag}&sort=-priority&limit=2`);
        expect(pages).toEqual([ids('server', 'vpn'), ids('screen', 'mail'), ids('toner', 'printer')]);
      });

      it('sends no Link on the last page, and no total with total=false', async () => {
        const last = await list('limit=6&total=false');
        expect(last.ids).toHaveLength(6);
        expect(last.response.headers.link).toBeUndefined();
        expect(last.response.headers['x-total-count']).toBeUndefined();
        expect(last.total).toBeNull();
      });

      it('lets the page size change between pages of one walk', async () => {
        const first = await list('limit=1');
        const rest = await list(`limit=10&cursor=${first.nextCursor}`);
        expect([...first.ids, ...rest.ids]).toEqual(ids('printer', 'vpn', 'mail', 'toner', 'screen', 'server'));
      });
    });
  });

  describe('v1 and v2 differ as versioned', () => {
    it('v1: status wins over requesterEmail, also with the new parameters', async () => {
      const answer = await listTickets(testApp.http, 'v1', `assignedTo=${tag}&status=OPEN&requesterEmail=${mail('bob')}`);
      expect(answer.ids).toEqual(ids('printer', 'mail'));
    });

    it('v2: every filter ANDs, and status and priority take several values', async () => {
      expect((await listTickets(testApp.http, 'v2', `assignedTo=${tag}&status=OPEN&requesterEmail=${mail('bob')}`)).ids).toEqual([]);
      expect((await listTickets(testApp.http, 'v2', `assignedTo=${tag}&status=OPEN,CLOSED&requesterEmail=${mail('bob')}`)).ids).toEqual(
        ids('toner'),
      );
      expect((await listTickets(testApp.http, 'v2', `assignedTo=${tag}&priority=LOW&priority=CRITICAL`)).ids).toEqual(
        ids('printer', 'vpn', 'server'),
      );
    });

    it('v1 without limit is unpaged: a plain array of every match, no Link, no X-Total-Count, also when sorted', async () => {
      const answer = await listTickets(testApp.http, 'v1', `assignedTo=${tag}&sort=-id`);
      expect(Array.isArray(answer.response.body)).toBe(true);
      expect(answer.ids).toHaveLength(6);
      expect(answer.response.headers.link).toBeUndefined();
      expect(answer.response.headers['x-total-count']).toBeUndefined();
    });

    it('v1 without the new parameters answers exactly as before: same body, same headers', async () => {
      const plain = await testApp.http.get(`/api/tickets?requesterEmail=${mail('ann')}`).expect(200);
      expect(plain.body.map((ticket: { id: number }) => ticket.id)).toEqual(ids('printer', 'mail', 'server'));
      expect(plain.text).toBe(JSON.stringify(plain.body));
      expect(Object.keys(plain.headers).filter((name) => ['link', 'x-total-count', 'location'].includes(name))).toEqual([]);
      const ignored = await testApp.http.get(`/api/tickets?requesterEmail=${mail('ann')}&page=0&size=1`).expect(200);
      expect(ignored.text).toBe(plain.text);
    });

    it('v2 pages by 50 by default', async () => {
      const answer = await listTickets(testApp.http, 'v2', '');
      expect(answer.ids.length).toBeLessThanOrEqual(50);
      expect(answer.total).toEqual(expect.any(Number));
    });
  });

  describe('Location on create', () => {
    it.each<ApiVersion>(['v1', 'v2'])('%s answers 201 with the Location of the new ticket, which serves it', async (version) => {
      const created = await testApp.http.post(COLLECTIONS[version]).send(buildTicketRequest()).expect(201);
      expect(created.headers.location).toBe(`${COLLECTIONS[version]}/${created.body.id}`);
      expect((await testApp.http.get(created.headers.location).expect(200)).body).toEqual(created.body);
    });
  });
});
