// The conformance fixtures of the tasks scenarios: a sync-only tool, a long-running task, a task that ends in a tool
// error and one whose execution fails. Each entry names the scenarios that use it.
import { pathsFrom, type StateMachineTool } from '../tools/state-machine-tool.js';
import { NO_ARGUMENTS, oneStep } from './conformance-fixture-parts.js';

const here = pathsFrom(import.meta.url);

export const TASK_FIXTURES: readonly StateMachineTool[] = [
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
];
