// Test fixture for the SEP-1686 dialect end to end: two loopback servers on one task table (one with a request
// lifetime of 1 s) and a raw SEP-1686 client of the first, plus the helpers the SEP-1686 tests share.
// useSep1686Servers() registers the hooks that start and stop the servers; `server`, `shortLived` and `sep` are live
// bindings, set before the test file's first test.
import { randomUUID } from 'node:crypto';
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll } from 'vitest';
import { taskKey } from '../../lambda/core/task-key.js';
import { RELATED_TASK, Sep1686Client } from './sep-1686-client.js';
import {
  createTestTable,
  exampleTools,
  localAwsClients,
  startTestServer,
  TOKENS,
  type TestServer,
} from './local-backend.js';

export let server: TestServer;
export let shortLived: TestServer;
export let sep: Sep1686Client;

/** Registers beforeAll/afterAll hooks; use `server`, `shortLived` and `sep` inside tests only. */
export function useSep1686Servers(): void {
  beforeAll(async () => {
    const tableName = await createTestTable();
    server = await startTestServer({ listPageSize: 2 }, { tableName });
    // Same table, but a request lifetime of 1 s: the original response cannot wait for a long execution.
    shortLived = await startTestServer({ resultWaitMs: 1_000 }, { tableName });
    sep = new Sep1686Client(server.url, TOKENS.alice);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), shortLived?.close()]);
  });
}

export const newTaskId = (): string => randomUUID();
export const related = (taskId: string) => ({ [RELATED_TASK]: { taskId } });

export async function executionsOf(toolName: string, owner: string, taskId: string): Promise<{ status?: string }[]> {
  const stateMachineArn = exampleTools().find((tool) => tool.name === toolName)!.stateMachineArn;
  const { executions = [] } = await localAwsClients().stepFunctions.send(
    new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }),
  );
  // Every execution ever started for this (owner, task ID), whatever its nonce.
  return executions.filter((execution) => execution.name?.startsWith(`task-${taskKey(owner, taskId)}-`));
}

export async function pollUntil(
  taskId: string,
  done: (status: string) => boolean,
  client = sep,
): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const { response } = await client.taskRequest('tasks/get', taskId);
    if (response?.result && done(response.result['status'] as string)) return response.result;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${taskId} never reached the expected status`);
}
