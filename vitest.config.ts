import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The PostgreSQL test database: CI's CHATFLOW_TEST_DATABASE_URL, or one made for this run.
    globalSetup: ['test/helpers/pg-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Servers and CLI processes are real: two machine cores, so two files at a time.
    maxWorkers: 2,
    // A skipped test is a test that did not run: fail the run instead of reporting it.
    allowOnly: false,
    passWithNoTests: false,
  },
});
