import { defineConfig } from 'vitest/config';

// Two groups, the second after the first (docs/testing.md, Two at a time). `together` runs two
// files at once: each is an HTTP suite whose server lives in the test's own process, so the second
// worker uses the second core. `alone` runs one file at a time: browsers, containers, several
// processes, crashes and the command line's child processes load the whole machine and wait on it.
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
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          maxWorkers: Number(process.env.TEST_WORKERS || 2),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
