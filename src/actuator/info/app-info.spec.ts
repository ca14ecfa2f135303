import { readPackageFacts } from '../../common/package-facts.js';
import { appInfo } from './app-info.js';

const PKG = { name: 'ticket-service', description: 'Tickets', version: '1.2.3' };

describe('appInfo', () => {
  it('reads name, description and version from the project package.json', () => {
    expect(readPackageFacts()).toEqual({
      name: 'ticket-service',
      description: expect.any(String),
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });

  it('takes the app facts from package.json when nothing is configured', () => {
    expect(appInfo(PKG, {}, '20.19.0')).toEqual({
      app: { name: 'ticket-service', description: 'Tickets', version: '1.2.3' },
      build: { artifact: 'ticket-service', name: 'ticket-service', version: '1.2.3' },
      node: { version: '20.19.0' },
    });
  });

  it('lets configuration override each app fact, but not the build facts', () => {
    const info = appInfo(PKG, { name: 'helpdesk', version: '9' }, '20.19.0');
    expect(info.app).toEqual({ name: 'helpdesk', description: 'Tickets', version: '9' });
    expect(info.build.version).toBe('1.2.3');
  });
});
