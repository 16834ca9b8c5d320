// The executor over the engines the clients reach: Step Functions always, durable functions when a Lambda client is
// given. One place, so the MCP function, status sync and the expiry sweep all reach the same engines.
import { DurableFunctionExecutor } from '../executor/durable-function-executor.js';
import { StepFunctionsExecutor } from '../executor/step-functions-executor.js';
import { WorkflowEngines } from '../executor/workflow-engines.js';
import type { BackendClients } from './aws-clients.js';

export function workflowEngines(clients: BackendClients): WorkflowEngines {
  return new WorkflowEngines({
    stepFunctions: new StepFunctionsExecutor({ client: clients.stepFunctions }),
    ...(clients.lambda !== undefined
      ? { durableFunctions: new DurableFunctionExecutor({ client: clients.lambda }) }
      : {}),
  });
}
