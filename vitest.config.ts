import { defineConfig } from 'vitest/config';

/**
 * Two projects, one run. Unit tests (src/) and the browser tests keep a fresh process per file:
 * they are quick to load, and some replace process-wide things (fetch dispatchers, PDF and sandbox
 * engines). The end-to-end tests share a process per worker (`isolate: false`): each file starts
 * its own server and database, and loading the server's modules once per worker instead of once
 * per file takes about half the suite's time off.
 */
export default defineConfig({
  test: {
    // The second reporter writes the OAuth regression results when CAIRN_OAUTH_CHECKS_OUT is set.
    reporters: ['default', './test/support/oauth-checks-reporter.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Two cores: two workers, each with its own copy of the migrated template database.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['src/**/*.test.ts', 'test/browser/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], isolate: false },
      },
    ],
  },
});
