// The example tools run by Lambda durable functions: each is a tool description, the function's name, and the module
// whose `handler` the function runs, which the CDK app deploys and the local stack runs on its local runner of durable
// functions.
import type { ToolDescription } from '../contract/tool-definition.js';
import { pathsFrom } from '../tools/state-machine-tool.js';
import { DURABLE_REVIEW_TOOL } from './durable/durable-review.js';

const here = pathsFrom(import.meta.url);

export interface DurableFunctionTool extends ToolDescription {
  /** The function's name (locally; the CDK app names its own). */
  readonly functionName: string;
  /** The module whose `handler` the function runs: `withDurableExecution(…)`. */
  readonly entry: string;
}

export const EXAMPLE_DURABLE_TOOLS: readonly DurableFunctionTool[] = [
  {
    ...DURABLE_REVIEW_TOOL,
    functionName: 'durable-review',
    entry: here('../handlers/durable-review.ts'),
  },
];
