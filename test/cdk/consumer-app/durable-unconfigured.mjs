// The packed `mcp-tasks-sfn/durable` subpath imported as Node loads it (ESM, by the package name), its helpers called
// outside a configured function: no TASK_TABLE_NAME (the test runs this without it). Prints what each call came to,
// as JSON, for packed-construct.test.ts. The context's operations throw: nothing may reach them unconfigured.
import { durableWorkflowHelpersFromEnvironment } from 'mcp-tasks-sfn/durable';

const { ask, report } = durableWorkflowHelpersFromEnvironment();
const event = {
  arguments: {},
  execution: 'arn:aws:lambda:eu-west-1:123456789012:function:review:1/durable-execution/task-unconfigured',
};
const unreachable = (operation) => () => {
  throw new Error(`${operation} was called`);
};
const context = { step: unreachable('step'), waitForCallback: unreachable('waitForCallback') };
const request = { method: 'elicitation/create', params: { message: 'Approve?', requestedSchema: { type: 'object' } } };
const outcomes = await Promise.allSettled([
  report(context, event, { message: 'Started' }),
  ask(context, event, { request }),
]);
console.log(
  JSON.stringify(
    outcomes.map((outcome) =>
      outcome.status === 'rejected'
        ? { rejected: `${outcome.reason.name}: ${outcome.reason.message}` }
        : { fulfilled: outcome.value },
    ),
  ),
);
