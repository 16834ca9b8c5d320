// The progress step of an McpTaskEndpoint: one function per endpoint that a state machine's Task states
// invoke to report progress on their task, and the LambdaInvoke that calls it, for state machines built in CDK.
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { HandlerFunction } from '../handlers/handler-function.js';
import { createTaskItemWriter, type TaskItemWriterProps } from './task-item-writer.js';

/** What a progress step reports. Numbers may be JSONPath values (`sfn.JsonPath.numberAt('$.done')`). */
export interface ProgressStepProps {
  /**
   * The message; `{progress}`, `{total}` and `{secondsLeft}` are filled in when a client reads it.
   * @default - the count alone
   */
  readonly message?: string;
  /** Units done so far; an earlier count arriving late never replaces a later one. @default - unchanged */
  readonly progress?: number;
  /**
   * Units this step adds (one Map iteration, say): concurrent steps add up, none lost. Not with `progress`.
   * @default - none
   */
  readonly increment?: number;
  /** Units in all. @default - unchanged */
  readonly total?: number;
  /** Seconds until a wait that follows ends, for `{secondsLeft}`. @default - none */
  readonly secondsLeft?: number;
  /** @default - none */
  readonly comment?: string;
}

/** The endpoint's progress function: it may update items of the task table and nothing else. */
export function createProgressFunction(
  scope: Construct,
  id: string,
  props: Omit<TaskItemWriterProps, 'description' | 'timeout'>,
): HandlerFunction {
  return createTaskItemWriter(scope, id, {
    ...props,
    description: 'Records the progress a state machine reports on its MCP task',
  });
}

/** A Task state invoking `handler` with the execution's ARN and `props`; its input passes through unchanged. */
export function progressInvoke(
  scope: Construct,
  id: string,
  handler: HandlerFunction,
  props: ProgressStepProps,
): tasks.LambdaInvoke {
  const { comment, ...report } = props;
  const payload = Object.fromEntries(Object.entries(report).filter(([, value]) => value !== undefined));
  return new tasks.LambdaInvoke(scope, id, {
    lambdaFunction: handler.function,
    payload: sfn.TaskInput.fromObject({ execution: sfn.JsonPath.stringAt('$$.Execution.Id'), ...payload }),
    payloadResponseOnly: true,
    // The report is a side note: the state's output is its input, so it can sit anywhere in a workflow.
    resultPath: sfn.JsonPath.DISCARD,
    ...(comment !== undefined ? { comment } : {}),
  });
}
