import { aggregateStatus, httpStatusOf, SPRING_STATUS, toSpringComponent, toSystemHealth } from './spring-health.js';

describe('Spring health rendering', () => {
  it('turns a Terminus result into a component with status first and its data as details', () => {
    expect(toSpringComponent({ status: 'up', database: 'MariaDB', validationQuery: 'isValid()' })).toEqual({
      status: 'UP',
      details: { database: 'MariaDB', validationQuery: 'isValid()' },
    });
    expect(Object.keys(toSpringComponent({ status: 'down', error: 'Error: x' }))).toEqual(['status', 'details']);
  });

  it('leaves details out when a component has none, as ping', () => {
    expect(toSpringComponent({ status: 'up' })).toEqual({ status: 'UP' });
  });

  it('uses the Spring status an indicator names instead of plain DOWN, without showing it as a detail', () => {
    expect(toSpringComponent({ status: 'down', [SPRING_STATUS]: 'OUT_OF_SERVICE' })).toEqual({ status: 'OUT_OF_SERVICE' });
  });

  it('ranks DOWN over OUT_OF_SERVICE over UP, and answers UNKNOWN for nothing', () => {
    expect(aggregateStatus(['UP', 'OUT_OF_SERVICE', 'DOWN'])).toBe('DOWN');
    expect(aggregateStatus(['UP', 'OUT_OF_SERVICE'])).toBe('OUT_OF_SERVICE');
    expect(aggregateStatus(['UP', 'UP'])).toBe('UP');
    expect(aggregateStatus([])).toBe('UNKNOWN');
  });

  it('sorts components by name and takes the worst status for the whole', () => {
    const health = toSystemHealth({ rabbit: { status: 'down', error: 'x' }, db: { status: 'up' }, diskSpace: { status: 'up' } }, [], []);
    expect(Object.keys(health.components)).toEqual(['db', 'diskSpace', 'rabbit']);
    expect(health.status).toBe('DOWN');
    expect(health).not.toHaveProperty('groups');
  });

  it('shows an informational component without letting it decide the overall status', () => {
    const health = toSystemHealth({ db: { status: 'up' }, outbox: { status: 'down', error: 'x' } }, ['outbox'], []);
    expect(health.status).toBe('UP');
    expect(health.components.outbox.status).toBe('DOWN');
  });

  it('lists groups after the components when there are any', () => {
    expect(Object.keys(toSystemHealth({ ping: { status: 'up' } }, [], ['liveness', 'readiness']))).toEqual([
      'status',
      'components',
      'groups',
    ]);
  });

  it('maps DOWN and OUT_OF_SERVICE to 503 and everything else to 200', () => {
    expect([httpStatusOf('DOWN'), httpStatusOf('OUT_OF_SERVICE'), httpStatusOf('UP'), httpStatusOf('UNKNOWN')]).toEqual([
      503, 503, 200, 200,
    ]);
  });
});
