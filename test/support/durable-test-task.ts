// A working task of a durable tool in an in-memory store, for the durable helpers' tests: its execution is a durable
// execution's reference carrying the task key, as the task service stores it, and the event its function starts with.
import { randomUUID } from 'node:crypto';
import { SYSTEM_CLOCK } from '../../lambda/core/clock.js';
import { compactExecutionNameFor, newExecutionNonce, taskKey } from '../../lambda/core/task-key.js';
import type { DurableToolEvent } from '../../lambda/contract/durable-tool-event.js';
import { durableExecutionRefFor } from '../../lambda/executor/durable-execution-arn.js';
import { InMemoryTaskStore } from '../../lambda/store/in-memory-task-store.js';
import { newTask } from '../contract/task-fixtures.js';

const FUNCTION = 'arn:aws:lambda:us-east-1:123456789012:function:durable-review:live';

/** A store holding one working durable task, and the event its execution starts with. */
export async function storedDurableTask(store = new InMemoryTaskStore({ clock: SYSTEM_CLOCK })) {
  const owner = `owner-${randomUUID()}`;
  const taskId = randomUUID();
  const execution = durableExecutionRefFor(
    FUNCTION,
    compactExecutionNameFor(taskKey(owner, taskId), newExecutionNonce()),
  );
  await store.create(newTask(SYSTEM_CLOCK, { owner, taskId, toolName: 'durable_review', executionArn: execution }));
  const event: DurableToolEvent = { arguments: {}, execution };
  return { store, owner, taskId, event, read: () => store.get(owner, taskId) };
}
