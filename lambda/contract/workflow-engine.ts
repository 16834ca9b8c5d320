// The engines a tool's workflow can run on, and how a workflow is named to the executor: an engine and the ARN of what
// it runs. The construct and the runtime agree on these names. Pure.

/**
 * The workflow engines: AWS Step Functions (a STANDARD state machine, the default for every tool) and Lambda durable
 * functions (a durable function's qualified ARN).
 */
export const WorkflowEngine = {
  StepFunctions: 'step-functions',
  DurableFunctions: 'durable-functions',
} as const;
export type WorkflowEngine = (typeof WorkflowEngine)[keyof typeof WorkflowEngine];

/** What a task of a tool runs: the engine, and the ARN of the state machine or function it runs there. */
export interface Workflow {
  readonly engine: WorkflowEngine;
  readonly arn: string;
}

/** A Step Functions workflow: what every tool defined by a state machine runs. */
export function stepFunctionsWorkflow(stateMachineArn: string): Workflow {
  return { engine: WorkflowEngine.StepFunctions, arn: stateMachineArn };
}

/**
 * The engine of a workflow ARN: Lambda's for a function's ARN (`arn:<partition>:lambda:…:function:…`), else Step
 * Functions', as every tool's workflow was before engines.
 */
export function engineOfWorkflowArn(workflowArn: string): WorkflowEngine {
  return /^arn:[^:]+:lambda:[^:]*:[^:]*:function:/.test(workflowArn)
    ? WorkflowEngine.DurableFunctions
    : WorkflowEngine.StepFunctions;
}

/**
 * The engine an execution ARN belongs to, from the ARN's service field (`arn:<partition>:<service>:…`): `states` for
 * Step Functions, `lambda` for a durable execution; `null` for anything else. A task item stores only the execution
 * ARN, so this is how a stored task, old or new, finds its engine without a field of its own.
 */
export function engineOfExecutionArn(executionArn: string): WorkflowEngine | null {
  const service = executionArn.split(':')[2];
  if (service === 'states') return WorkflowEngine.StepFunctions;
  if (service === 'lambda') return WorkflowEngine.DurableFunctions;
  return null;
}
