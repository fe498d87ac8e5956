import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // rebuilds dist/ when a source is newer (tests that run the installed entry use it)
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Crash and CLI tests spawn child processes; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
