// The local stand-in for status events, on DynamoDB Local and the Step Functions emulator, with the table made to fail
// for a while through the SDK middleware (as a throttle left after the SDK's retries): a task whose every read fails
// during its last moments is still seen to its end by the watcher, with no client polling.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TaskOrigin } from '../../lambda/core/task.js';
import { createTaskCore } from '../../lambda/handlers/task-core.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import { startExecutionStatusWatcher, type ExecutionStatusWatcher } from '../../local/execution-status-watcher.js';
import { statusEventRecorder } from '../../local/status-events-stand-in.js';
import {
  createTestTable,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  silentLogger,
} from '../support/local-backend.js';
import { throttleWhen } from '../support/injected-throttle.js';

let failUntil = 0;

let tableName: string;
let watcher: ExecutionStatusWatcher | undefined;
beforeAll(async () => {
  tableName = await createTestTable();
});
afterAll(() => watcher?.stop());

describe('the execution status watcher through a DynamoDB outage', () => {
  it('keeps watching a task whose reads fail, and records its end once they succeed again', async () => {
    const settings = { ...DEFAULT_SETTINGS, pollIntervalMs: 100 };
    const caller = createTaskCore({ tableName, settings, tools: exampleTools() }, localAwsClients(), silentLogger);
    const faulty = localAwsClients();
    throttleWhen(faulty.dynamoDb, 'dynamoDb', ({ command }) => command === 'GetItemCommand' && Date.now() < failUntil);
    const status = createTaskCore({ tableName, settings }, faulty, silentLogger);
    watcher = startExecutionStatusWatcher({
      read: statusEventRecorder(status.service),
      intervalMs: 100,
    });
    const task = await caller.service.createTask({
      owner: 'watched',
      toolName: 'text_stats',
      arguments: { text: 'one two' },
      origin: TaskOrigin.Mcp20251125,
    });
    // Every read of the watcher fails from the first round until well after the execution has ended.
    failUntil = Date.now() + 2_000;
    watcher.watch('watched', task.taskId);
    await vi.waitUntil(() => Date.now() >= failUntil, GENEROUS_WAIT);
    await vi.waitUntil(
      async () => (await caller.store.get('watched', task.taskId))?.status === 'completed',
      GENEROUS_WAIT,
    );
    expect((await caller.store.get('watched', task.taskId))?.status).toBe('completed');
  });
});
