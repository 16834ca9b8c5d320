// Lambda step of test_error_handling: a tool-level error (`isError: true`), which is a result, not a failed execution.
import { toolError, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> =>
  toolError('This tool intentionally returns an error for testing');
