// Lambda step of slow_compute, run once its Wait state has slept the requested seconds: reports what was computed.
import { result, text, type FixtureResult } from './fixture-content.js';

export interface SlowComputeArguments {
  readonly seconds: number;
  readonly label?: string;
}

export const handler = async (args: SlowComputeArguments): Promise<FixtureResult> =>
  result(text(`slow_compute${args.label === undefined ? '' : ` '${args.label}'`} finished after ${args.seconds} s`));
