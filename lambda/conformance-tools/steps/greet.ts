// Lambda step of greet: "Hello, {name}!".
import { result, text, type FixtureResult } from './fixture-content.js';

export const handler = async (args: { readonly name: string }): Promise<FixtureResult> =>
  result(text(`Hello, ${args.name}!`));
