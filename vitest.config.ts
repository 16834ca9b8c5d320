import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
    // One DynamoDB Local and one Step Functions emulator for the whole run; each test file makes its own table.
    // The Lambda assets first: CDK tests synthesize them (see scripts/build-assets.ts).
    globalSetup: ['test/support/build-assets-setup.ts', 'test/support/global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    // Handlers publish EMF metrics to stdout; test/integration/task-metrics.test.ts turns them back on to read them.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
  },
});
