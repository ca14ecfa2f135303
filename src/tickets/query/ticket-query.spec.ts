import { BadRequestException } from '@nestjs/common';
import { ValidationFailedException } from '../../common/errors/validation-failed.exception.js';
import type { ListedTicket } from '../ticket-row.js';
import { encodeCursor } from './ticket-cursor.js';
import type { QueryDialect } from '../../common/paging/query-parameters.js';
import { parseTicketQuery } from './ticket-query.js';

function problems(raw: Record<string, unknown>, dialect: QueryDialect = 'v1'): Array<[string, string, unknown]> {
  try {
    parseTicketQuery(raw, dialect);
  } catch (error) {
    if (!(error instanceof ValidationFailedException)) throw error;
    return error.fieldErrors.map((e) => [e.field, e.code, e.rejectedValue]);
  }
  return [];
}

const ticket = { id: 7, updatedAt: '2026-01-01T00:00:00.000Z' } as ListedTicket;

describe('parseTicketQuery', () => {
  describe('v1', () => {
    it('without new parameters is the original list: every ticket by ascending id, unpaged', () => {
      expect(parseTicketQuery({}, 'v1')).toEqual({
        filters: { statuses: [], priorities: [] },
        sort: [{ field: 'id', descending: false }],
        fingerprint: expect.any(String),
      });
    });

    it('lets status win over requesterEmail, and uses the first value of a repeated parameter', () => {
      const query = parseTicketQuery({ status: ['OPEN', 'CLOSED'], requesterEmail: 'a@b.c', priority: 'HIGH' }, 'v1');
      expect(query.filters).toEqual({ statuses: ['OPEN'], priorities: ['HIGH'] });
      expect(parseTicketQuery({ status: '', requesterEmail: 'a@b.c' }, 'v1').filters.requesterEmail).toBe('a@b.c');
    });

    it('answers an unknown status exactly as before: its own message, before any other parameter is read', () => {
      expect(() => parseTicketQuery({ status: 'open', limit: '0' }, 'v1')).toThrow(BadRequestException);
      expect(() => parseTicketQuery({ status: 'open' }, 'v1')).toThrow('No enum constant TicketStatus.open');
    });

    it('ignores unknown parameters and reports every bad new one at once, naming it', () => {
      expect(
        problems({
          page: '0',
          size: '1',
          sort: 'id,desc',
          priority: 'URGENT',
          createdAfter: 'yesterday',
          limit: '1001',
          q: 'x'.repeat(201),
          total: 'yes',
        }),
      ).toEqual([
        ['priority', 'typeMismatch', 'URGENT'],
        ['createdAfter', 'typeMismatch', 'yesterday'],
        ['q', 'Size', 'x'.repeat(201)],
        ['sort', 'typeMismatch', 'desc'],
        ['limit', 'Range', '1001'],
        ['total', 'typeMismatch', 'yes'],
      ]);
      expect(problems({ limit: 'ten' })).toEqual([['limit', 'typeMismatch', 'ten']]);
    });

    it('pages only with limit, counting the total unless total=false', () => {
      expect(parseTicketQuery({ limit: '10' }, 'v1').page).toEqual({ limit: 10, withTotal: true });
      expect(parseTicketQuery({ limit: '10', total: 'false' }, 'v1').page).toEqual({ limit: 10, withTotal: false });
      expect(problems({ cursor: 'abc' })).toEqual([['cursor', 'InvalidCursor', 'abc']]);
    });
  });

  describe('v2', () => {
    it('always pages (50 by default) and takes several statuses and priorities, comma-separated or repeated', () => {
      const query = parseTicketQuery({ status: ['CLOSED,OPEN', 'OPEN'], priority: 'LOW,CRITICAL', requesterEmail: 'a@b.c' }, 'v2');
      expect(query.filters).toEqual({ statuses: ['OPEN', 'CLOSED'], priorities: ['LOW', 'CRITICAL'], requesterEmail: 'a@b.c' });
      expect(query.page).toEqual({ limit: 50, withTotal: true });
    });

    it('refuses unknown parameters, single-valued ones given twice, and an unknown status in its own field error', () => {
      expect(problems({ page: '1', limit: ['1', '2'], status: 'OPEN,open' }, 'v2')).toEqual([
        ['page', 'UnknownParameter', '1'],
        ['status', 'typeMismatch', 'open'],
        ['limit', 'Repeated', ['1', '2']],
      ]);
    });
  });

  describe('cursors', () => {
    it('continue the same query whatever order its values were given in, with any limit', () => {
      const first = parseTicketQuery({ status: 'OPEN,CLOSED', sort: '-updatedAt', limit: '5' }, 'v2');
      const cursor = encodeCursor(first.fingerprint, first.sort, ticket);
      const next = parseTicketQuery({ status: ['CLOSED', 'OPEN'], sort: '-updatedAt', limit: '9', cursor }, 'v2');
      expect(next.page?.after).toEqual([Date.parse(ticket.updatedAt), 7]);
    });

    it('from another query, or altered, are a 400 on cursor', () => {
      const first = parseTicketQuery({ status: 'OPEN', limit: '5' }, 'v1');
      const cursor = encodeCursor(first.fingerprint, first.sort, ticket);
      expect(problems({ status: 'CLOSED', limit: '5', cursor })).toEqual([['cursor', 'InvalidCursor', cursor]]);
      expect(problems({ status: 'OPEN', limit: '5', cursor, sort: '-id' })).toEqual([['cursor', 'InvalidCursor', cursor]]);
      expect(problems({ status: 'OPEN', limit: '5', cursor: `x${cursor}` })).toEqual([['cursor', 'InvalidCursor', `x${cursor}`]]);
      expect(problems({ status: 'OPEN', limit: '5', cursor, requesterEmail: 'ignored@in.v1' })).toEqual([]);
    });
  });
});
