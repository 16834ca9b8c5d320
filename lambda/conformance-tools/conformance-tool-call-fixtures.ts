// The conformance fixtures of plain tool calls, never run as tasks: each content type a result can carry, progress,
// a tool error, a JSON Schema 2020-12 input schema, a custom header parameter, and the server-stateless diagnostics.
// Each entry names the scenarios that use it.
import type { JsonSchema } from '../contract/tool-definition.js';
import { PROGRESS_LAMBDA_STEP, PROGRESS_STEP_PLACEHOLDER } from '../progress/progress-lambda-step.js';
import { pathsFrom, type StateMachineTool } from '../tools/state-machine-tool.js';
import { NO_ARGUMENTS, oneStep } from './conformance-fixture-parts.js';

const here = pathsFrom(import.meta.url);

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

export const TOOL_CALL_FIXTURES: readonly StateMachineTool[] = [
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
];
