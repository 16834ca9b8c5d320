// Lambda step of json_schema_2020_12_tool: echoes the arguments, which the backend has validated against the tool's
// 2020-12 schema ($ref into $defs, allOf/anyOf, if/then/else) before the execution started.
import { result, text, type FixtureResult } from './fixture-content.js';

export interface ContactArguments {
  readonly name?: string;
  readonly address?: { readonly street?: string; readonly city?: string };
  readonly contactMethod?: 'phone' | 'email';
  readonly phone?: string;
  readonly email?: string;
}

export const handler = async (args: ContactArguments): Promise<FixtureResult> =>
  result(text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`));
