// Lambda step of test_streaming_elicitation: a plain result. The answer is the only message on the request's stream
// (no request to the client rides on it), which is what server-stateless checks.
import { result, text, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> => result(text('Streaming complete'));
