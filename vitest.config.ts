import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Four projects, so the fast loop stays fast: `npm run test:unit` runs the unit project alone, with no global setup
// (no Java, no DynamoDB Local, no emulator, no bundling). `npm test` runs them all.
export default defineConfig({
  test: {
    // Every project inherits these (an inline project extends the root config since vitest 5), and shares its Vite
    // server, so the files they have in common are transformed once.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    // Handlers publish EMF metrics to stdout; test/integration/task-metrics.test.ts turns them back on to read them.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
    // One test file per core, not vitest's default of one fewer: most integration and end-to-end files spend their
    // time waiting on the stand-ins and on timers, so a second file on a two-core machine halves nothing but the wait
    // (the whole suite in about 60% of the time, measured on two cores).
    maxWorkers: availableParallelism(),
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          // One DynamoDB Local and one Step Functions emulator for the project; each test file makes its own table.
          // The Lambda assets first: some tests load the bundles (see scripts/build-assets.ts).
          globalSetup: ['test/support/build-assets-setup.ts', 'test/support/global-setup.ts'],
        },
      },
      {
        test: {
          name: 'cdk',
          include: ['test/cdk/**/*.test.ts'],
          // CDK tests synthesize the prebuilt Lambda assets, so they are built from the working tree first.
          globalSetup: ['test/support/build-assets-setup.ts'],
        },
      },
      {
        test: {
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
          globalSetup: ['test/support/build-assets-setup.ts', 'test/support/global-setup.ts'],
        },
      },
    ],
  },
});
