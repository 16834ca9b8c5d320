// Per-owner limits on in-memory parts: active-task slots (held by every active task, plain calls included, freed when a
// task ends, and repaired when a release was lost) and creations per clock minute. A refused task is neither kept nor
// started.
import { describe, expect, it, vi } from 'vitest';
import { TaskLimitExceededError } from '../../../lambda/core/errors.js';
import { FIRST_CHECK_AFTER_MS } from '../../../lambda/core/task.js';
import type { TaskServiceSettings } from '../../../lambda/service/settings.js';
import {
  analyze,
  inMemoryBackend,
  lastExecution,
  settle,
  T0,
  textStats,
  useFakeTime,
} from '../../support/in-memory-backend.js';

useFakeTime();

const limited = (settings: Partial<TaskServiceSettings> = {}) =>
  inMemoryBackend({ settings: { maxActiveTasksPerOwner: 2, ...settings } });

describe('the active-task limit', () => {
  it('refuses a task past the limit, and stores and starts nothing for it', async () => {
    const b = limited();
    await b.service().createTask(analyze('at-limit'));
    await b.service().createTask(analyze('at-limit'));
    await expect(b.service().createTask(analyze('at-limit'))).rejects.toMatchObject({
      name: 'TaskLimitExceededError',
      limit: 'active-tasks',
      max: 2,
      retryAfterSeconds: Math.ceil(b.settings.pollIntervalMs / 1000),
    });
    expect(b.executor.calls.start).toBe(2);
    expect((await b.store.list('at-limit', { limit: 10 })).tasks).toHaveLength(2);
  });

  it('counts each owner apart', async () => {
    const b = limited({ maxActiveTasksPerOwner: 1 });
    await b.service().createTask(analyze('one'));
    await expect(b.service().createTask(analyze('two'))).resolves.toMatchObject({ status: 'submitted' });
  });

  it('shares the count between two service instances', async () => {
    const b = limited();
    const [one, two] = [b.service(), b.service()];
    await one.createTask(analyze('shared'));
    await two.createTask(analyze('shared'));
    await expect(one.createTask(analyze('shared'))).rejects.toBeInstanceOf(TaskLimitExceededError);
    await expect(two.createTask(analyze('shared'))).rejects.toBeInstanceOf(TaskLimitExceededError);
  });

  it('frees a slot when the reconciler finds a task finished whose status event was lost', async () => {
    const b = limited();
    const quick = await b.service().createTask(textStats('finishes'));
    await b.service().createTask(analyze('finishes'));
    b.executor.succeed(quick.executionArn, { words: 3 });
    await vi.advanceTimersByTimeAsync(FIRST_CHECK_AFTER_MS);
    await b.service().reconcileDue({ maxChecks: 10 });
    expect((await b.service().getTask('finishes', quick.taskId)).status).toBe('completed');
    await expect(b.service().createTask(analyze('finishes'))).resolves.toMatchObject({ status: 'submitted' });
  });

  it('frees a slot when a status event reports a task finished', async () => {
    const b = limited({ maxActiveTasksPerOwner: 1 });
    const task = await b.service().createTask(textStats('evented'));
    await b.service().recordExecutionEvent(task.executionArn, { status: 'FAILED', error: 'Boom' });
    await expect(b.service().createTask(analyze('evented'))).resolves.toMatchObject({ status: 'submitted' });
  });

  it('frees a slot when a task is cancelled, and another when one is deleted', async () => {
    const b = limited();
    const first = await b.service().createTask(analyze('withdrawn'));
    const second = await b.service().createTask(analyze('withdrawn'));
    await b.service().cancelTask('withdrawn', first.taskId);
    await b.service().createTask(analyze('withdrawn'));
    await expect(b.service().createTask(analyze('withdrawn'))).rejects.toBeInstanceOf(TaskLimitExceededError);
    await b.service().deleteTask('withdrawn', second.taskId);
    await expect(b.service().createTask(analyze('withdrawn'))).resolves.toMatchObject({ status: 'submitted' });
  });

  it('frees the slots that lost releases left held once the owner reaches the limit', async () => {
    const b = limited();
    await b.quotas.holdActiveSlot('leftover', 'crashed-before-release', 2);
    await b.quotas.holdActiveSlot('leftover', 'swept-unseen', 2);
    await expect(b.service().createTask(analyze('leftover'))).resolves.toMatchObject({ status: 'submitted' });
  });

  it('frees the slot of a task whose release was lost once it has finished, and keeps the active ones', async () => {
    const b = limited();
    const lost = await b.service().createTask(textStats('repaired'));
    await b.service().createTask(analyze('repaired'));
    // Finished behind the service's back: the store shows it completed, its slot still held.
    await b.store.update(lost, { status: 'completed', at: Date.now() });
    await expect(b.service().createTask(analyze('repaired'))).resolves.toMatchObject({ status: 'submitted' });
    await expect(b.service().createTask(analyze('repaired'))).rejects.toBeInstanceOf(TaskLimitExceededError);
  });

  it('takes the slot a finishing task frees while the full slots are repaired', async () => {
    const b = limited({ maxActiveTasksPerOwner: 1 });
    const finishing = await b.service().createTask(textStats('race'));
    const repair = b.quotas.reconcileActiveSlots.bind(b.quotas);
    // The finished task's own release lands after the refused hold and before the repair reads the slots, so the
    // repair finds nothing to free.
    vi.spyOn(b.quotas, 'reconcileActiveSlots').mockImplementationOnce(async (owner) => {
      await b.quotas.releaseActiveSlot(owner, finishing.taskId);
      return repair(owner);
    });
    await expect(b.service().createTask(analyze('race'))).resolves.toMatchObject({ status: 'submitted' });
    expect(b.executor.calls.start).toBe(2);
  });

  it('counts plain tool calls, and refuses one past the limit without starting it', async () => {
    const b = limited({ maxActiveTasksPerOwner: 1 });
    await b.service().createTask(analyze('plain-limit'));
    const call = b.service().runToCompletion('plain-limit', 'text_stats', { text: 'a' });
    await expect(call).rejects.toMatchObject({ name: 'TaskLimitExceededError', limit: 'active-tasks' });
    expect(b.executor.calls.start).toBe(1);
  });

  it('holds a plain call’s slot while it runs and frees it when it returns', async () => {
    const b = limited({ maxActiveTasksPerOwner: 1 });
    const call = b.service().runToCompletion('plain-slot', 'text_stats', { text: 'a' });
    await vi.advanceTimersByTimeAsync(0);
    await expect(b.service().createTask(analyze('plain-slot'))).rejects.toBeInstanceOf(TaskLimitExceededError);
    b.executor.succeed(lastExecution(b).executionArn, { words: 1 });
    await b.statusEvent(lastExecution(b));
    await settle(call);
    await expect(b.service().createTask(analyze('plain-slot'))).resolves.toMatchObject({ status: 'submitted' });
  });
});

describe('the creations-per-minute limit', () => {
  it('refuses creations past the limit until the next clock minute, starting nothing', async () => {
    const b = inMemoryBackend({ settings: { maxTaskCreationsPerMinute: 2 } });
    const windowEnd = T0 - (T0 % 60_000) + 60_000;
    await b.service().createTask(textStats('rate'));
    await b.service().createTask(textStats('rate'));
    await expect(b.service().createTask(textStats('rate'))).rejects.toMatchObject({
      name: 'TaskLimitExceededError',
      limit: 'creations-per-minute',
      max: 2,
      retryAfterSeconds: Math.ceil((windowEnd - T0) / 1000),
    });
    expect(b.executor.calls.start).toBe(2);
    vi.setSystemTime(windowEnd - 1);
    await expect(b.service().createTask(textStats('rate'))).rejects.toBeInstanceOf(TaskLimitExceededError);
    vi.setSystemTime(windowEnd);
    await expect(b.service().createTask(textStats('rate'))).resolves.toMatchObject({ status: 'submitted' });
  });

  it('counts no call its arguments were refused for, and each owner apart', async () => {
    const b = inMemoryBackend({ settings: { maxTaskCreationsPerMinute: 1 } });
    await b.service().runToCompletion('counted', 'text_stats', { words: 'refused by the schema' });
    await b.service().createTask(textStats('counted'));
    await expect(b.service().createTask(textStats('counted'))).rejects.toMatchObject({
      limit: 'creations-per-minute',
    });
    await expect(b.service().createTask(textStats('other'))).resolves.toMatchObject({ status: 'submitted' });
  });
});
