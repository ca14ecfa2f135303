import { withoutHidden } from './spring-health.js';

const health = {
  status: 'UP' as const,
  components: { db: { status: 'UP' as const, details: { database: 'MariaDB' } }, ping: { status: 'UP' as const } },
  groups: ['liveness', 'readiness'],
};

describe('withoutHidden', () => {
  it('keeps everything when components and details are shown', () => {
    expect(withoutHidden(health, { components: true, details: true })).toBe(health);
  });

  it('keeps each component with its status alone when details are hidden', () => {
    expect(withoutHidden(health, { components: true, details: false })).toEqual({
      status: 'UP',
      components: { db: { status: 'UP' }, ping: { status: 'UP' } },
      groups: ['liveness', 'readiness'],
    });
  });

  it('keeps the status and the groups, in that order, when components are hidden', () => {
    expect(JSON.stringify(withoutHidden(health, { components: false, details: true }))).toBe(
      '{"status":"UP","groups":["liveness","readiness"]}',
    );
  });
});
