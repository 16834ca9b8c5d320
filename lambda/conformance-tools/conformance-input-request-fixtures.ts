// The conformance fixtures that ask their client for input through the shared ask step: the 2025-era elicitation
// and sampling calls, the modern era's tasks that ask, and the input_required rounds of plain calls. Each entry names
// the scenarios that use it.
import { ASK_STEP } from '../example-tools/example-tool-catalog.js';
import { pathsFrom, type StateMachineTool } from '../tools/state-machine-tool.js';
import { NO_ARGUMENTS, oneStep } from './conformance-fixture-parts.js';

const here = pathsFrom(import.meta.url);

/** A fixture whose ASL asks its client through the shared ask step (`${AskFunctionArn}`). */
function asking(file: string): Pick<StateMachineTool, 'definitionPath' | 'lambdaSteps'> {
  return { definitionPath: here(`./asl/${file}.asl.json`), lambdaSteps: { AskFunctionArn: ASK_STEP } };
}

/**
 * The ask step (`${AskFunctionArn}`), then the step turning its answer into the result (`${InputAnswerFunctionArn}`).
 */
const ASKS_THEN_ANSWERS: StateMachineTool['lambdaSteps'] = {
  AskFunctionArn: ASK_STEP,
  ...oneStep('InputAnswer', 'input-answer'),
};

export const INPUT_REQUEST_FIXTURES: readonly StateMachineTool[] = [
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
