// Lambda step of test_simple_text: the fixed text the tools-call-simple-text scenario expects.
import { result, text, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> => result(text('This is a simple text response for testing.'));
