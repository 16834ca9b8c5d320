// A team's own durable function as it is written after `npm i mcp-tasks-sfn @aws/durable-execution-sdk-js`: it asks
// its client and reports progress through the package's `mcp-tasks-sfn/durable` helpers. Copied into the consumer
// app by packed-construct.test.ts and type-checked there with tsc, strict and without skipLibCheck, against the
// packed declarations (never compiled in this repository, whose tsconfig leaves this folder out: the package name
// only resolves once the package is installed).
import { withDurableExecution, type DurableContext } from '@aws/durable-execution-sdk-js';
import {
  durableWorkflowHelpersFromEnvironment,
  type DurableProgressReport,
  type DurableQuestion,
  type DurableToolEvent,
  type DurableWorkflowHelpers,
  type InputAnswer,
  type ProgressStepResult,
} from 'mcp-tasks-sfn/durable';

interface RefundArguments {
  readonly orderId: string;
  readonly amount: number;
}

const helpers: DurableWorkflowHelpers = durableWorkflowHelpersFromEnvironment();

export const handler = withDurableExecution(
  async (event: DurableToolEvent<RefundArguments>, context: DurableContext) => {
    const checking: DurableProgressReport = { message: 'Checking order {progress} of {total}', progress: 0, total: 1 };
    const reported: ProgressStepResult = await helpers.report(context, event, checking, 'check order');
    const question: DurableQuestion = {
      name: 'approval',
      key: 'approval',
      timeoutSeconds: 3600,
      request: {
        method: 'elicitation/create',
        params: {
          message: `Refund ${event.arguments.amount} EUR on order ${event.arguments.orderId}?`,
          requestedSchema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] },
        },
      },
    };
    const answer: InputAnswer = await helpers.ask(context, event, question);
    // A sampling answer is the client's CreateMessageResult: the workflow names its own answer type.
    const sampled = await helpers.ask<{ content: { type: 'text'; text: string } }>(context, event, {
      request: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 100 } },
    });
    const approved = answer.action === 'accept' && answer.content?.['approved'] === true;
    return {
      content: [{ type: 'text', text: approved ? `Refunded (${sampled.content.text})` : 'Not refunded' }],
      structuredContent: { approved, progressRecorded: reported.recorded },
    };
  },
);
