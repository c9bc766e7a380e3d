import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A browser's screen settles within a second on a quiet machine; a loaded one (CI beside
    // Postgres and Chromium) may take several. expect.poll waits longer before it fails.
    expect: { poll: { timeout: 10_000 } },
    env: { SHORTLINK_VALIDATE_RESPONSES: '1', LOG_LEVEL: 'silent' },
  },
});
