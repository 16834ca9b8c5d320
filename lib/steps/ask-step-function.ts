// The ask step for the CDK construct: the Lambda function that records an input request on its MCP task,
// and a helper that makes the `lambda:invoke.waitForTaskToken` state a team puts into its own state machine.
import { Duration, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { inputRequestProblems } from '../../lambda/contract/input-request-problems.js';
import { projectPath, type HandlerFunction } from '../handlers/handler-function.js';
import { throwIfProblems } from '../props/mcp-task-endpoint-validation.js';
import { createTaskItemWriter, type TaskItemWriterProps } from './task-item-writer.js';

export interface AskStepProps {
  /**
   * The question, shown to the person (a plain string, or `sfn.JsonPath.format(...)` to build it from the state input).
   */
  readonly message: string;
  /** The form: a flat JSON Schema object of primitive properties (MCP form-mode elicitation's `requestedSchema`). */
  readonly requestedSchema: Record<string, unknown>;
  /**
   * How long the person has to answer; past it the state fails with States.Timeout and the task says the input never
   * came.
   */
  readonly timeout: Duration;
  /** Where the answer (`{ action, content }`) goes in the state's output. @default '$.answer' */
  readonly resultPath?: string;
}

/**
 * The ask function: invoked by ask states with their task token, it records the request on the task (one UpdateItem,
 * the only table action it has) and returns; the execution waits for the answer.
 */
export function createAskFunction(
  scope: Construct,
  id: string,
  props: Omit<TaskItemWriterProps, 'entry' | 'description' | 'timeout'>,
): HandlerFunction {
  return createTaskItemWriter(scope, id, {
    ...props,
    entry: projectPath('lambda/handlers/ask-step.ts'),
    description: 'Ask step: records an input request (elicitation, sampling, roots) on its MCP task',
    timeout: Duration.seconds(10),
  });
}

/**
 * Lets `grantee` resume waiting executions with an answer. Task-token actions support no resource-level permissions.
 */
export function grantTaskTokenAnswers(grantee: iam.IGrantable & { readonly role?: iam.IRole }): void {
  iam.Grant.addToPrincipal({
    grantee,
    actions: ['states:SendTaskSuccess', 'states:SendTaskFailure'],
    resourceArns: ['*'],
  });
  if (grantee.role !== undefined) {
    Validations.of(grantee.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'states:SendTaskSuccess and states:SendTaskFailure support no resource-level permissions; ' +
        'the task token itself is the authorization.',
    });
  }
}

/** A Standard execution lives at most a year: a longer wait could never end in an answer. */
const MAX_ASK_TIMEOUT = Duration.days(365);

/** The request the ask state sends, as the ask function will read it. */
function elicitationRequest(props: AskStepProps) {
  return {
    method: 'elicitation/create',
    params: { mode: 'form', message: props.message, requestedSchema: props.requestedSchema },
  } as const;
}

/**
 * Every problem with an ask step's props, caught at synth rather than by the ask function at run time (which fails
 * the execution) or by Step Functions at deploy time.
 */
export function askStepProblems(props: AskStepProps): string[] {
  const problems = inputRequestProblems(elicitationRequest(props));
  const millis = props.timeout.toMilliseconds({ integral: false });
  if (millis < 1000 || millis > MAX_ASK_TIMEOUT.toMilliseconds() || millis % 1000 !== 0)
    problems.push(`timeout must be whole seconds from 1 second to 365 days, got ${props.timeout.toHumanString()}`);
  return problems;
}

/** The ask state: `lambda:invoke.waitForTaskToken` on the ask function, with the Payload the ask step reads. */
export function askStepTask(
  scope: Construct,
  id: string,
  askFunction: HandlerFunction,
  props: AskStepProps,
): tasks.LambdaInvoke {
  throwIfProblems(`Ask step ${id}`, askStepProblems(props));
  return new tasks.LambdaInvoke(scope, id, {
    lambdaFunction: askFunction.function,
    integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    payload: sfn.TaskInput.fromObject({
      taskToken: sfn.JsonPath.taskToken,
      executionArn: sfn.JsonPath.executionId,
      timeoutSeconds: props.timeout.toSeconds(),
      request: elicitationRequest(props),
    }),
    taskTimeout: sfn.Timeout.duration(props.timeout),
    resultPath: props.resultPath ?? '$.answer',
  });
}
