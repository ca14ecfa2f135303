import { parseConfig } from '../../config/app-config.js';
import { ConfigError } from '../../config/env-reader.js';
import { healthGroups } from './health-groups.js';

const COMPONENTS = ['db', 'diskSpace', 'ping', 'rabbit', 'outbox', 'livenessState', 'readinessState'];
const management = (env: Record<string, string>) => parseConfig(env).management;

describe('healthGroups', () => {
  it('has no groups while probes are off', () => {
    expect(healthGroups(management({}), COMPONENTS)).toEqual({});
  });

  it('makes liveness the process alone and readiness its state plus the database by default', () => {
    expect(healthGroups(management({ MANAGEMENT_HEALTH_PROBES_ENABLED: 'true' }), COMPONENTS)).toEqual({
      liveness: ['livenessState'],
      readiness: ['readinessState', 'db'],
    });
  });

  it('takes the readiness members from MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE', () => {
    const env = { MANAGEMENT_HEALTH_PROBES_ENABLED: 'true', MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE: 'readinessState' };
    expect(healthGroups(management(env), COMPONENTS).readiness).toEqual(['readinessState']);
  });

  it('stops start-up, naming the variable, when readiness names a component that does not exist', () => {
    const env = { MANAGEMENT_HEALTH_PROBES_ENABLED: 'true', MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE: 'readinessState,dbx' };
    expect(() => healthGroups(management(env), COMPONENTS)).toThrow(ConfigError);
    expect(() => healthGroups(management(env), COMPONENTS)).toThrow(/^MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE .*dbx/);
  });

  it('adds the attachment storage to readiness wherever it exists, once', () => {
    const probes = { MANAGEMENT_HEALTH_PROBES_ENABLED: 'true' };
    expect(healthGroups(management(probes), [...COMPONENTS, 'attachmentStorage']).readiness).toEqual([
      'readinessState',
      'db',
      'attachmentStorage',
    ]);
    const env = { ...probes, MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE: 'attachmentStorage,readinessState' };
    expect(healthGroups(management(env), [...COMPONENTS, 'attachmentStorage']).readiness).toEqual(['attachmentStorage', 'readinessState']);
  });
});
