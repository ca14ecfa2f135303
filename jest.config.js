// Unit specs sit next to the code (src, *.spec.ts); e2e specs in test/ run against the real MariaDB and RabbitMQ.
// `npm test` (scripts/test.mjs) runs the unit and e2e projects in parallel workers, then the serial project one
// file at a time; each worker has a database, exchange and queue of its own (test/support/worker-env.ts).
// How the tests run: docs/operations.md, "How the tests run".

/**
 * Suites that cannot share the machine with another suite: they run alone, after the others (scripts/test.mjs).
 * Each one's reason; what failed under parallel runs is noted as seen.
 */
export const SERIAL = [
  // Counts the database server's COMMITs (SHOW GLOBAL STATUS): every other suite's writes would count too.
  'test/tickets/concurrency.e2e-spec.ts',
  // Asserts each 503 within the statement timeout + 1.5 s, through proxies it cuts and slows: a deadline on the
  // service's own speed, which other suites' load moves.
  'test/http/faults.e2e-spec.ts',
  // 4,000 requests where any 5xx fails the suite: under other suites' load a statement can outlast the service's 5 s
  // database deadline and answer 503 (seen failing under parallel runs); its own load also slowed the others.
  'test/http/fuzz.e2e-spec.ts',
  // Lease takeover within the lease TTL + 2-3 s, between replica processes it kills and pauses (seen failing).
  'test/events/relay-leases.e2e-spec.ts',
  // Two replica processes started at once plus writes within one test's 30 s, and a replica killed mid-write
  // (seen timing out under parallel runs, the replicas' start-up alone taking most of it).
  'test/events/outbox.e2e-spec.ts',
  // Readiness 503 within 1.5 s of SIGTERM, drain and shutdown timings of service processes.
  'test/actuator/graceful-shutdown.e2e-spec.ts',
  // Starts instrumented service processes (and a copy of the app) within each test's 30 s (seen timing out).
  'test/observability/tracing.e2e-spec.ts',
  // Fails over between broker addresses by cutting proxies, then expects the rabbit health component UP at once
  // (seen answering 503 under parallel runs).
  'test/events/broker-settings.e2e-spec.ts',
  // A relay at the shortest lease its poll allows holds its partitions without a gap: renewals at the pace of the
  // service's own passes, which other suites' load would delay.
  'test/events/relay-lease-renewal.e2e-spec.ts',
];

const typescript = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  setupFiles: ['<rootDir>/test/support/worker-env.ts', '<rootDir>/test/support/short-keep-alive.ts'],
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
  // Suites mostly wait on the servers and on each other's I/O: more workers than the 2 cores of CI keep them busy.
  maxWorkers: 3,
};
