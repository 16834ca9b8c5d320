// Lambda step of failing_job, after its one-second Wait: the job ran and failed, reported as a tool-level error.
import { toolError, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> =>
  toolError('failing_job failed: the job ran and reported an error, as this fixture always does.');
