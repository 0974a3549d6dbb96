import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The second reporter writes the OAuth regression results when CAIRN_OAUTH_CHECKS_OUT is set.
    reporters: ['default', './test/support/oauth-checks-reporter.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Two cores: two workers, each with its own copy of the migrated template database.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
