// The fixture tools the MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12) calls, each a real
// state machine: an ASL definition in asl/ whose Lambda steps are handler modules in handlers/. Kept out of the
// default catalog: `npm run start:conformance` serves these instead of the example tools, and the CDK app never
// deploys them. Each entry names the scenarios that use it; the contracts come from the scenario sources.
import type { JsonSchema } from '../tools/tool-definition.js';
import { PROGRESS_LAMBDA_STEP, PROGRESS_STEP_PLACEHOLDER } from '../progress/progress-lambda-step.js';
import { pathsFrom, type StateMachineTool } from '../tools/state-machine-tool.js';
import { ASK_STEP } from '../example-tools/catalog.js';
import type { PromptDefinition } from '../prompts/prompt-definition.js';

const here = pathsFrom(import.meta.url);

const NO_ARGUMENTS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/** A fixture of one Lambda step: `${<Step>FunctionArn}` in its ASL, handlers/<handler>.ts as the step. */
function oneStep(step: string, handler: string): StateMachineTool['lambdaSteps'] {
  return {
    [`${step}FunctionArn`]: { functionName: `conformance-${handler}`, entry: here(`./handlers/${handler}.ts`) },
  };
}

/** A fixture whose ASL asks its client through the shared ask step (`${AskFunctionArn}`). */
function asking(file: string): Pick<StateMachineTool, 'definitionPath' | 'lambdaSteps'> {
  return { definitionPath: here(`./asl/${file}.asl.json`), lambdaSteps: { AskFunctionArn: ASK_STEP } };
}

/** The input schema the json-schema-2020-12 scenario checks for, keyword for keyword. */
const JSON_SCHEMA_2020_12_INPUT_SCHEMA: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/**
 * The ask step (`${AskFunctionArn}`), then the step turning its answer into the result (`${InputAnswerFunctionArn}`).
 */
const ASKS_THEN_ANSWERS: StateMachineTool['lambdaSteps'] = {
  AskFunctionArn: ASK_STEP,
  ...oneStep('InputAnswer', 'input-answer'),
};

export const CONFORMANCE_TOOLS: readonly StateMachineTool[] = [
  // tools-call-simple-text. Listed first on purpose: http-header-validation calls the first listed tool with `{}`
  // and needs it to succeed without a task.
  {
    name: 'test_simple_text',
    title: 'Simple text',
    description: 'Tests simple text content response',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    definitionPath: here('./asl/test-simple-text.asl.json'),
    lambdaSteps: oneStep('SimpleText', 'simple-text'),
  },
  // tools-call-image
  {
    name: 'test_image_content',
    title: 'Image content',
    description: 'Tests image content response',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    definitionPath: here('./asl/test-image-content.asl.json'),
    lambdaSteps: oneStep('ImageContent', 'image-content'),
  },
  // tools-call-audio
  {
    name: 'test_audio_content',
    title: 'Audio content',
    description: 'Tests audio content response',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    definitionPath: here('./asl/test-audio-content.asl.json'),
    lambdaSteps: oneStep('AudioContent', 'audio-content'),
  },
  // tools-call-embedded-resource
  {
    name: 'test_embedded_resource',
    title: 'Embedded resource',
    description: 'Tests embedded resource content response',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    definitionPath: here('./asl/test-embedded-resource.asl.json'),
    lambdaSteps: oneStep('EmbeddedResource', 'embedded-resource'),
  },
  // tools-call-mixed-content
  {
    name: 'test_multiple_content_types',
    title: 'Multiple content types',
    description: 'Tests response with multiple content types (text, image, resource)',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    definitionPath: here('./asl/test-multiple-content-types.asl.json'),
    lambdaSteps: oneStep('MultipleContentTypes', 'multiple-content-types'),
  },
  // tools-call-with-progress: three reports through the shared progress step, seen as notifications/progress
  {
    name: 'test_tool_with_progress',
    title: 'Tool with progress',
    description: 'Reports progress 0, 50 and 100 of 100 from its workflow, then answers',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    definitionPath: here('./asl/test-tool-with-progress.asl.json'),
    lambdaSteps: {
      ...oneStep('ToolWithProgress', 'tool-with-progress'),
      [PROGRESS_STEP_PLACEHOLDER]: PROGRESS_LAMBDA_STEP,
    },
  },
  // tools-call-error
  {
    name: 'test_error_handling',
    title: 'Error handling',
    description: 'Tests error response handling: always returns a tool error (isError: true)',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    definitionPath: here('./asl/test-error-handling.asl.json'),
    lambdaSteps: oneStep('ErrorHandling', 'error-handling'),
  },
  // json-schema-2020-12 (only lists it: $schema, $defs with $anchor, additionalProperties, allOf/anyOf, if/then/else)
  {
    name: 'json_schema_2020_12_tool',
    title: 'JSON Schema 2020-12',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: JSON_SCHEMA_2020_12_INPUT_SCHEMA,
    taskSupport: 'forbidden',
    definitionPath: here('./asl/json-schema-2020-12-tool.asl.json'),
    lambdaSteps: oneStep('JsonSchema202012', 'json-schema-2020-12'),
  },
  // http-custom-header-server-validation: the first tool with a string-typed `x-mcp-header` parameter
  {
    name: 'test_custom_header',
    title: 'Custom header',
    description: 'Echoes the region; clients mirror it into the Mcp-Param-Region request header (SEP-2243)',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', description: 'Any region name.', 'x-mcp-header': 'Region' } },
      required: ['region'],
      additionalProperties: false,
    },
    taskSupport: 'forbidden',
    definitionPath: here('./asl/test-custom-header.asl.json'),
    lambdaSteps: oneStep('CustomHeader', 'custom-header'),
  },
  // server-stateless (no log messages unless the request sets a log level)
  {
    name: 'test_logging_tool',
    title: 'Logging diagnostic',
    description: 'Diagnostic logging validator tool: answers without log messages, since the request set no log level',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    definitionPath: here('./asl/test-logging-tool.asl.json'),
    lambdaSteps: oneStep('LoggingTool', 'logging-tool'),
  },
  // server-stateless (the response stream carries no independent requests to the client)
  {
    name: 'test_streaming_elicitation',
    title: 'Response stream diagnostic',
    description:
      'Diagnostic tool validating response streams: answers on the request stream without ' +
      'sending the client any request',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    requiredClientCapabilities: { elicitation: {} },
    definitionPath: here('./asl/test-streaming-elicitation.asl.json'),
    lambdaSteps: oneStep('StreamingElicitation', 'streaming-elicitation'),
  },
  // server-stateless (a call without a capability the tool relies on is refused with -32021)
  {
    name: 'test_missing_capability',
    title: 'Capability diagnostic',
    description: "Diagnostic tool whose workflow relies on the client's sampling capability",
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    requiredClientCapabilities: { sampling: {} },
    definitionPath: here('./asl/test-missing-capability.asl.json'),
    lambdaSteps: oneStep('MissingCapability', 'missing-capability'),
  },
  // tasks-lifecycle, tasks-capability-negotiation, tasks-request-headers, tasks-dispatch-and-envelope: sync-only
  {
    name: 'greet',
    title: 'Greet',
    description: 'Returns "Hello, {name}!". Sync-only: never runs as a task.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', description: 'Who to greet.' } },
      required: ['name'],
      additionalProperties: false,
    },
    taskSupport: 'forbidden',
    definitionPath: here('./asl/greet.asl.json'),
    lambdaSteps: oneStep('Greet', 'greet'),
  },
  // tasks-lifecycle, tasks-capability-negotiation, tasks-wire-fields, tasks-request-state-removal,
  // tasks-request-headers, tasks-dispatch-and-envelope: the long-running task (cancelled mid-wait by several)
  {
    name: 'slow_compute',
    title: 'Slow compute',
    description:
      'Sleeps `seconds` seconds (0 answers at once), then returns a result naming the label. Can ' +
      'be cancelled while it sleeps.',
    inputSchema: {
      type: 'object',
      properties: {
        seconds: { type: 'integer', minimum: 0, maximum: 3600, description: 'How long to sleep.' },
        label: { type: 'string', maxLength: 200, description: 'Echoed in the result.' },
      },
      required: ['seconds'],
      additionalProperties: false,
    },
    taskSupport: 'optional',
    definitionPath: here('./asl/slow-compute.asl.json'),
    lambdaSteps: oneStep('SlowCompute', 'slow-compute'),
  },
  // tasks-lifecycle, tasks-dispatch-and-envelope (a tool error is a completed task with result.isError), and
  // tasks-required-task-error (registered as `required`: refused with -32021 to a client without the tasks extension)
  {
    name: 'failing_job',
    title: 'Failing job',
    description: 'Works for about a second, then reports a tool error (isError: true). Runs only as a task.',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'required',
    definitionPath: here('./asl/failing-job.asl.json'),
    lambdaSteps: oneStep('FailingJob', 'failing-job'),
  },
  // tasks-lifecycle: a protocol-level error (the execution fails, so the task fails with an error object)
  {
    name: 'protocol_error_job',
    title: 'Protocol error job',
    description:
      'Crashes: its execution fails, which surfaces as a failed task (a protocol-level error, not a tool error).',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'optional',
    definitionPath: here('./asl/protocol-error-job.asl.json'),
    lambdaSteps: oneStep('ProtocolErrorJob', 'protocol-error-job'),
  },
  // --- Input requests on the 2025-era streams: each asks the client through the ask step, which waits for
  // the answer (SendTaskSuccess), then a Lambda step turns the answer into the text result the scenario expects.
  // tools-call-elicitation
  {
    name: 'test_elicitation',
    title: 'Elicitation',
    description: 'Asks the user for a username and an email (elicitation), then returns the response',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'What to ask the user.' } },
      required: ['message'],
      additionalProperties: false,
    },
    taskSupport: 'optional',
    requiredClientCapabilities: { elicitation: {} },
    definitionPath: here('./asl/test-elicitation.asl.json'),
    lambdaSteps: ASKS_THEN_ANSWERS,
  },
  // tools-call-sampling
  {
    name: 'test_sampling',
    title: 'Sampling',
    description: "Asks the client's model to answer the prompt (sampling), then returns its answer",
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt for the model.' } },
      required: ['prompt'],
      additionalProperties: false,
    },
    taskSupport: 'optional',
    requiredClientCapabilities: { sampling: {} },
    definitionPath: here('./asl/test-sampling.asl.json'),
    lambdaSteps: ASKS_THEN_ANSWERS,
  },
  // elicitation-sep1034-defaults
  {
    name: 'test_elicitation_sep1034_defaults',
    title: 'Elicitation with defaults',
    description: 'Asks with a form whose string, integer, number, enum and boolean fields all have defaults (SEP-1034)',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'optional',
    requiredClientCapabilities: { elicitation: {} },
    definitionPath: here('./asl/test-elicitation-sep1034-defaults.asl.json'),
    lambdaSteps: ASKS_THEN_ANSWERS,
  },
  // elicitation-sep1330-enums
  {
    name: 'test_elicitation_sep1330_enums',
    title: 'Elicitation with enums',
    description: 'Asks with a form holding the five enum variants of SEP-1330',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'optional',
    requiredClientCapabilities: { elicitation: {} },
    definitionPath: here('./asl/test-elicitation-sep1330-enums.asl.json'),
    lambdaSteps: ASKS_THEN_ANSWERS,
  },
  // --- Input requests (modern era): the workflow asks its client through the ask step. ---
  // tasks-mrtr-input: a task that asks one question (key minted from the task token), answered with tasks/update
  {
    name: 'confirm_delete',
    title: 'Confirm delete',
    description:
      'Asks the client to confirm deleting `filename` (one elicitation), then reports whether it deleted it.',
    inputSchema: {
      type: 'object',
      properties: { filename: { type: 'string', maxLength: 200, description: 'The file to delete.' } },
      required: ['filename'],
      additionalProperties: false,
    },
    taskSupport: 'optional',
    requiredClientCapabilities: { elicitation: {} },
    ...asking('confirm-delete'),
  },
  // tasks-mrtr-input (partial fulfilment): two questions open at once, from two ask steps in a Parallel state
  {
    name: 'multi_input',
    title: 'Two questions at once',
    description: 'Asks two questions in parallel; finishes once both are answered, in any order.',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'optional',
    requiredClientCapabilities: { elicitation: {} },
    ...asking('multi-input'),
  },
  // tasks-mrtr-composition: asks inline first (input_required round), becomes a task with the answer
  {
    name: 'test_tool_with_task',
    title: 'Ask, then a task',
    description:
      'Asks for a name (key user_name) inline; the call that answers gets the task, whose result greets the name.',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'required',
    requiredClientCapabilities: { elicitation: {} },
    inputBeforeTask: true,
    ...asking('test-tool-with-task'),
  },
  // input-required-result-basic-elicitation, -result-type, -missing-input-response, -ignore-extra-params,
  // -validate-input
  {
    name: 'test_input_required_result_elicitation',
    title: 'Asks a name inline',
    description:
      'Asks the client for a name (key user_name) as an input_required round of the plain call, then greets it.',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    requiredClientCapabilities: { elicitation: {} },
    ...asking('test-input-required-result-elicitation'),
  },
  // input-required-result-basic-sampling
  {
    name: 'test_input_required_result_sampling',
    title: "Asks the client's model inline",
    description: "Asks the client's model a question (key capital_question), then returns its answer.",
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    requiredClientCapabilities: { sampling: {} },
    ...asking('test-input-required-result-sampling'),
  },
  // input-required-result-capability-check: asks only what it requires (sampling); a request the client could not
  // answer is refused by the server anyway (-32021), never sent
  {
    name: 'test_input_required_result_capabilities',
    title: 'Asks only what the client can answer',
    description:
      "Asks the client's model a question (key capital_question): it requires sampling only, so a client without " +
      'elicitation can call it.',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    requiredClientCapabilities: { sampling: {} },
    ...asking('test-input-required-result-sampling'),
  },
  // input-required-result-basic-list-roots
  {
    name: 'test_input_required_result_list_roots',
    title: "Asks the client's roots inline",
    description: 'Asks the client for its roots (key client_roots), then names them.',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    requiredClientCapabilities: { roots: {} },
    ...asking('test-input-required-result-list-roots'),
  },
  // input-required-result-request-state
  {
    name: 'test_input_required_result_request_state',
    title: 'Confirms through a signed requestState',
    description:
      'Asks the client to confirm (key confirm); the answer reaches the workflow only with the signed requestState, ' +
      'and the result says state-ok.',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    requiredClientCapabilities: { elicitation: {} },
    ...asking('test-input-required-result-confirm'),
  },
  // input-required-result-tampered-state: the same workflow; a tampered requestState is refused (-32602) before it
  {
    name: 'test_input_required_result_tampered_state',
    title: 'Refuses a tampered requestState',
    description:
      'Asks the client to confirm (key confirm); a retry whose requestState was altered is refused (-32602).',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    requiredClientCapabilities: { elicitation: {} },
    ...asking('test-input-required-result-confirm'),
  },
  // input-required-result-multiple-input-requests
  {
    name: 'test_input_required_result_multiple_inputs',
    title: 'Asks three things at once',
    description:
      "Asks a name (elicitation), a greeting (the client's model) and the client's roots in parallel, then combines " +
      'them.',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    requiredClientCapabilities: { elicitation: {}, sampling: {}, roots: {} },
    ...asking('test-input-required-result-multiple-inputs'),
  },
  // input-required-result-multi-round
  {
    name: 'test_input_required_result_multi_round',
    title: 'Asks twice in a row',
    description:
      'Asks a name (key step1), then a colour (key step2): two input_required rounds, each with a new requestState.',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'forbidden',
    requiredClientCapabilities: { elicitation: {} },
    ...asking('test-input-required-result-multi-round'),
  },
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
