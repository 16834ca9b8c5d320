// The fixture tools the MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12) calls, each a real
// state machine: an ASL definition in asl/ whose Lambda steps (the functions its Task states invoke) are modules in
// steps/. Kept out of the default catalog: `npm run start:conformance` serves these instead of the example tools, and
// the CDK app never deploys them. The fixtures are grouped by what the scenarios exercise (plain tool calls, tasks,
// input requests), each entry naming the scenarios that use it; the contracts come from the scenario sources.
import type { StateMachineTool } from '../tools/state-machine-tool.js';
import type { PromptDefinition } from '../prompts/prompt-definition.js';
import { INPUT_REQUEST_FIXTURES } from './conformance-input-request-fixtures.js';
import { TASK_FIXTURES } from './conformance-task-fixtures.js';
import { TOOL_CALL_FIXTURES } from './conformance-tool-call-fixtures.js';

/** Every fixture tool, in the order tools/list shows them (the first must answer `{}` without a task). */
export const CONFORMANCE_TOOLS: readonly StateMachineTool[] = [
  ...TOOL_CALL_FIXTURES,
  ...TASK_FIXTURES,
  ...INPUT_REQUEST_FIXTURES,
];

/**
 * The fixture prompts: prompts render in-process (no state machine), so these are definitions alone. Served by
 * `npm run start:conformance` beside the fixture tools.
 */
export const CONFORMANCE_PROMPTS: readonly PromptDefinition[] = [
  // input-required-result-non-tool-request: prompts/get answers input_required (key user_context) until the retry
  // carries the answer, then renders with it
  {
    name: 'test_input_required_result_prompt',
    title: 'Asks for context first',
    description: 'Asks the client what context to use (key user_context), then renders a prompt with it.',
    ask: {
      key: 'user_context',
      message: 'What context should the prompt use?',
      requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
    },
    render: (_args, answer) => [
      { role: 'user', content: { type: 'text', text: `Use this context: ${String(answer?.['context'])}` } },
    ],
  },
];
