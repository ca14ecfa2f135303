import { parseSort } from './ticket-sort.js';

describe('parseSort', () => {
  it('reads fields with an optional - for descending, and breaks ties by id in the direction of the last key', () => {
    expect(parseSort('-priority,createdAt').keys).toEqual([
      { field: 'priority', descending: true },
      { field: 'createdAt', descending: false },
      { field: 'id', descending: false },
    ]);
    expect(parseSort('-updatedAt').keys.at(-1)).toEqual({ field: 'id', descending: true });
  });

  it('keeps an explicit id where it is and drops keys after it, which could never decide anything', () => {
    expect(parseSort('status,-id,priority').keys).toEqual([
      { field: 'status', descending: false },
      { field: 'id', descending: true },
    ]);
  });

  it('names unknown fields and fields given twice', () => {
    expect(parseSort('title,id,desc').problems).toEqual([
      { kind: 'unknown', token: 'title' },
      { kind: 'unknown', token: 'desc' },
    ]);
    expect(parseSort('status,-status').problems).toEqual([{ kind: 'repeated', field: 'status' }]);
    expect(parseSort('+id').problems).toEqual([{ kind: 'unknown', token: '+id' }]);
  });

  it('reads field.<key> as a custom field sorted alone, its ties by id in its direction', () => {
    expect(parseSort('-field.cost')).toEqual({
      keys: [{ field: 'id', descending: true }],
      byField: { key: 'cost', descending: true },
      problems: [],
    });
    expect(parseSort('field.site').byField).toEqual({ key: 'site', descending: false });
    expect(parseSort('field.cost,-updatedAt').problems).toEqual([{ kind: 'field-alone', field: 'field.cost' }]);
    expect(parseSort('field.Cost').problems).toEqual([{ kind: 'unknown', token: 'field.Cost' }]);
  });
});
