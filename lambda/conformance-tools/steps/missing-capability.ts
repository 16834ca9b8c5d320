// Lambda step of test_missing_capability: a plain result. The tool declares that its workflow needs the client's
// `sampling` capability, so server-stateless sees a modern-era call without it refused (-32021) before this runs.
import { result, text, type FixtureResult } from './fixture-content.js';

export const handler = async (): Promise<FixtureResult> => result(text('Sampling capability was declared'));
