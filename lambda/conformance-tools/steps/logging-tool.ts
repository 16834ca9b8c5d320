// Lambda step of test_logging_tool: a plain result. An execution sends the client no log messages, so none arrive
// for a request that set no log level, which is what server-stateless checks.
import { result, text, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> => result(text('Logging evaluated'));
