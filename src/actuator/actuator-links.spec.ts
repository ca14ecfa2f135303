import { actuatorLinks } from './actuator-links.js';

describe('actuatorLinks', () => {
  it('links itself and each exposed endpoint, health-path as a template', () => {
    expect(actuatorLinks('http://h:1/actuator', () => true)._links).toEqual({
      self: { href: 'http://h:1/actuator', templated: false },
      health: { href: 'http://h:1/actuator/health', templated: false },
      'health-path': { href: 'http://h:1/actuator/health/{*path}', templated: true },
      info: { href: 'http://h:1/actuator/info', templated: false },
      prometheus: { href: 'http://h:1/actuator/prometheus', templated: false },
    });
  });

  it('links only itself when nothing is exposed', () => {
    expect(Object.keys(actuatorLinks('http://h/actuator', () => false)._links)).toEqual(['self']);
  });
});
