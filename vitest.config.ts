import { defineConfig } from 'vitest/config';

// Three groups, one after another (docs/testing.md, Two at a time). `together` runs two files at
// once: each is an HTTP suite whose server lives in the test's own process, so the second worker
// uses the second core. It keeps a worker's modules from one file to the next (isolate: false):
// no suite mocks a module or changes the environment, and importing the service again for each
// file cost minutes of the run (docs/testing.md). `pairs` runs two at once of the dashboard's
// suites on Prism's mock: one of them alone left a core idle while its browser waited on Prism
// and on quiet. `alone` runs one file at a time: browsers beside a whole service, containers,
// several processes, crashes, the command line's child processes and the fuzzers load the whole
// machine and wait on it (paired, the fuzzers and the command line took about twice as long each).
const PAIRS = ['test/browser/dashboard-mock/*.test.ts'];
const ALONE = [
  'test/browser/**/*.test.ts',
  'test/deploy/*.test.ts',
  'test/crash/*.test.ts',
  'test/fuzz/*.test.ts',
  'test/cli/*.test.ts',
  'test/webhooks/multi-process.test.ts',
  'test/api/round-robin.test.ts',
  'test/db/migrations-together.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A browser's screen settles within a second on a quiet machine; a loaded one (CI beside
    // Postgres and Chromium) may take several. expect.poll waits longer before it fails.
    expect: { poll: { timeout: 10_000 } },
    env: { SHORTLINK_VALIDATE_RESPONSES: '1', LOG_LEVEL: 'silent' },
    projects: [
      {
        extends: true,
        test: {
          name: 'together',
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          maxWorkers: Number(process.env.TEST_WORKERS || 2),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'pairs',
          include: PAIRS,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: ALONE,
          exclude: PAIRS,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
