// The durable workflow helpers as the package's mcp-tasks-sfn/durable subpath gives them to a team's function: built
// from TASK_TABLE_NAME at their first call, refused with the variable's name when it is unset, and handing the
// workflow the SDK's own durable promise. Nothing here reaches AWS: the context's operations are stand-ins.
import type { DurableContext } from '@aws/durable-execution-sdk-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENV } from '../../../lambda/contract/environment-names.js';
import { durableWorkflowHelpersFromEnvironment } from '../../../lambda/handlers/durable-workflow-helpers.js';

const event = {
  arguments: {},
  execution: 'arn:aws:lambda:eu-west-1:123456789012:function:review:1/durable-execution/task-k-n',
};
const question = {
  request: { method: 'elicitation/create', params: { message: 'Approve?', requestedSchema: { type: 'object' } } },
} as const;

/** A context whose operations record that they were reached and answer `answer`. */
function contextAnswering(answer: Promise<unknown>) {
  const step = vi.fn(() => answer);
  const waitForCallback = vi.fn(() => answer);
  return { step, waitForCallback } as unknown as Pick<DurableContext, 'step' | 'waitForCallback'> & {
    step: typeof step;
    waitForCallback: typeof waitForCallback;
  };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('durableWorkflowHelpersFromEnvironment', () => {
  it('builds nothing until the first call: a handler module loads without TASK_TABLE_NAME', () => {
    vi.stubEnv(ENV.tableName, undefined);
    expect(() => durableWorkflowHelpersFromEnvironment()).not.toThrow();
  });

  it('rejects ask and report naming TASK_TABLE_NAME when it is unset or empty, reaching no durable operation', async () => {
    for (const value of [undefined, '']) {
      vi.stubEnv(ENV.tableName, value);
      const { ask, report } = durableWorkflowHelpersFromEnvironment();
      const context = contextAnswering(Promise.resolve({ recorded: true }));
      const asked = ask(context, event, question);
      const reported = report(context, event, { message: 'Started' });
      await expect(asked).rejects.toThrow(`Environment variable ${ENV.tableName} is required`);
      await expect(reported).rejects.toThrow(/grantTaskItemWrites/);
      expect(context.step).not.toHaveBeenCalled();
      expect(context.waitForCallback).not.toHaveBeenCalled();
    }
  });

  it('hands report’s durable promise back as the SDK made it, so its step starts only when awaited', async () => {
    vi.stubEnv(ENV.tableName, 'tasks');
    const { report } = durableWorkflowHelpersFromEnvironment();
    const stepPromise = Promise.resolve({ recorded: true });
    const context = contextAnswering(stepPromise);
    const reported = report(context, event, { message: 'Started' }, 'start');
    expect(reported).toBe(stepPromise);
    expect(context.step).toHaveBeenCalledWith('start', expect.any(Function), expect.anything());
    await expect(reported).resolves.toEqual({ recorded: true });
  });
});
