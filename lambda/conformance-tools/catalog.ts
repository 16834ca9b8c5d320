// The fixture tools the MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12) calls, each a real
// state machine: an ASL definition in asl/ whose Lambda steps are handler modules in handlers/. Kept out of the
// default catalog: `npm run start:conformance` serves these instead of the example tools, and the CDK app never
// deploys them. Each entry names the scenarios that use it; the contracts come from the scenario sources.
import type { JsonSchema } from '../tools/tool-definition.js';
import { PROGRESS_LAMBDA_STEP, PROGRESS_STEP_PLACEHOLDER } from '../progress/progress-lambda-step.js';
import { pathsFrom, type StateMachineTool } from '../tools/state-machine-tool.js';

const here = pathsFrom(import.meta.url);

const NO_ARGUMENTS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/** A fixture of one Lambda step: `${<Step>FunctionArn}` in its ASL, handlers/<handler>.ts as the step. */
function oneStep(step: string, handler: string): StateMachineTool['lambdaSteps'] {
  return { [`${step}FunctionArn`]: { functionName: `conformance-${handler}`, entry: here(`./handlers/${handler}.ts`) } };
}

/** The input schema the json-schema-2020-12 scenario checks for, keyword for keyword. */
const JSON_SCHEMA_2020_12_INPUT_SCHEMA: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
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
    lambdaSteps: { ...oneStep('ToolWithProgress', 'tool-with-progress'), [PROGRESS_STEP_PLACEHOLDER]: PROGRESS_LAMBDA_STEP },
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
    description: 'Diagnostic tool validating response streams: answers on the request stream without ' +
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
    inputSchema: { type: 'object', properties: { name: { type: 'string', description: 'Who to greet.' } }, required: ['name'], additionalProperties: false },
    taskSupport: 'forbidden',
    definitionPath: here('./asl/greet.asl.json'),
    lambdaSteps: oneStep('Greet', 'greet'),
  },
  // tasks-lifecycle, tasks-capability-negotiation, tasks-wire-fields, tasks-request-state-removal,
  // tasks-request-headers, tasks-dispatch-and-envelope: the long-running task (cancelled mid-wait by several)
  {
    name: 'slow_compute',
    title: 'Slow compute',
    description: 'Sleeps `seconds` seconds (0 answers at once), then returns a result naming the label. Can ' +
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
    description: 'Crashes: its execution fails, which surfaces as a failed task (a protocol-level error, not a tool error).',
    inputSchema: NO_ARGUMENTS,
    taskSupport: 'optional',
    definitionPath: here('./asl/protocol-error-job.asl.json'),
    lambdaSteps: oneStep('ProtocolErrorJob', 'protocol-error-job'),
  },
];
