// Unit specs sit next to the code (src, *.spec.ts); e2e specs in test/ run against the real MariaDB and RabbitMQ.
// `npm test` (scripts/test.mjs) runs the unit and e2e projects in parallel workers, then the serial project one
// file at a time; each worker has a database, exchange and queue of its own (test/support/worker-env.ts).
// How the tests run: docs/operations.md, "How the tests run".

/**
 * Suites that cannot share the machine with another suite, run alone after the others. Each one's reason:
 */
export const SERIAL = [
  // Counts the database server's COMMITs (SHOW GLOBAL STATUS): every other suite's writes would count too.
  'test/tickets/concurrency.e2e-spec.ts',
];

const typescript = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  setupFiles: ['<rootDir>/test/support/worker-env.ts'],
};

export default {
  projects: [
    { ...typescript, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...typescript,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...SERIAL.map((path) => `<rootDir>/${path}`)],
    },
    { ...typescript, displayName: 'serial', testMatch: SERIAL.map((path) => `<rootDir>/${path}`) },
  ],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30_000,
};
