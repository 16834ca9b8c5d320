// Last Lambda step of test_tool_with_progress, after its progress reports: confirms the run.
import { result, text, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> =>
  result(text('test_tool_with_progress finished: reported 0, 50 and 100 of 100'));
