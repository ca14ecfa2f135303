// Cluster specs (test/clusters/*.cluster-spec.ts) start real 3-node RabbitMQ and MariaDB Galera clusters on
// this machine (test/support/clusters/); run with `npm run test:clusters`. Same TypeScript/ESM settings as
// jest.config.js. The main suite's global setup (run id, run-private names, the service compiled into
// TEST_SERVICE_BUILD for specs that start replicas with ServiceProcess) is reused, and so is the teardown: the
// Galera spec sends events to the machine's RabbitMQ and the RabbitMQ-cluster spec stores tickets in the machine's
// MariaDB, under the run's own names, which the teardown removes.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/test/clusters/**/*.cluster-spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // A cluster takes tens of seconds to form, a failover several more.
  testTimeout: 300_000,
};
