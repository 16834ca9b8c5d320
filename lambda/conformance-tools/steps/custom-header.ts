// Lambda step of test_custom_header: echoes the region, the argument clients mirror into the Mcp-Param-Region header.
import { result, text, type FixtureResult } from './fixture-content.js';

export const handler = async (args: { readonly region: string }): Promise<FixtureResult> =>
  result(text(`Region: ${args.region}`));
