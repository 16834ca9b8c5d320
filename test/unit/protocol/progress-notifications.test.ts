// notifications/progress from a task's reported progress: `progress` must rise with every notification (MCP progress).
import { describe, expect, it } from 'vitest';
import type { TaskProgress } from '../../../lambda/core/task-progress.js';
import type { TaskRecord } from '../../../lambda/core/task.js';
import {
  progressNotifier,
  progressTokenOf,
  type ProgressNotification,
} from '../../../lambda/protocol/progress-notifications.js';

const withProgress = (progress: TaskProgress | undefined) => ({ status: 'working', progress }) as TaskRecord;

async function notificationsFor(reports: (TaskProgress | undefined)[]): Promise<ProgressNotification['params'][]> {
  const sent: ProgressNotification['params'][] = [];
  const notify = progressNotifier('token', async (notification) => void sent.push(notification.params));
  for (const report of reports) await notify(withProgress(report));
  return sent;
}

describe('progressNotifier', () => {
  it('sends the workflow’s count, total and message', async () => {
    expect(await notificationsFor([{ message: '{progress} of {total}', progress: 1, total: 3, at: 1 }])).toEqual([
      { progressToken: 'token', progress: 1, total: 3, message: '1 of 3' },
    ]);
  });

  it('never sends a count that does not rise', async () => {
    const sent = await notificationsFor([
      { progress: 2, total: 3, at: 1 },
      { progress: 2, total: 3, message: 'Same count, new words', at: 2 },
      { progress: 1, total: 3, at: 3 },
      { progress: 3, total: 3, at: 4 },
    ]);
    expect(sent.map((params) => params.progress)).toEqual([2, 3]);
  });

  it('numbers the messages of a workflow that reports no count', async () => {
    const sent = await notificationsFor([
      undefined,
      { message: 'Fetching', at: 1 },
      { message: 'Fetching', at: 2 },
      { message: 'Parsing', at: 3 },
    ]);
    expect(sent.map((params) => [params.progress, params.message])).toEqual([
      [1, 'Fetching'],
      [2, 'Parsing'],
    ]);
  });

  it('tells of each new current step of a workflow that reports no progress, as its statusMessage says it', async () => {
    const sent: ProgressNotification['params'][] = [];
    const notify = progressNotifier('token', async (notification) => void sent.push(notification.params));
    for (const currentStep of [undefined, 'Fetch', 'Fetch', 'Parse'])
      await notify({ status: 'working', currentStep } as TaskRecord);
    expect(sent).toEqual([
      { progressToken: 'token', progress: 1, message: 'Running Fetch' },
      { progressToken: 'token', progress: 2, message: 'Running Parse' },
    ]);
  });

  it('leaves the current step out once the workflow reports progress: the progress is what statusMessage shows', async () => {
    const sent: ProgressNotification['params'][] = [];
    const notify = progressNotifier('token', async (notification) => void sent.push(notification.params));
    await notify({
      status: 'working',
      currentStep: 'Analyse',
      progress: { message: '{progress} of {total}', progress: 1, total: 2, at: 1 },
    } as TaskRecord);
    expect(sent).toEqual([{ progressToken: 'token', progress: 1, total: 2, message: '1 of 2' }]);
  });
});

describe('progressTokenOf', () => {
  it('accepts a string or number token only', () => {
    expect(progressTokenOf({ progressToken: 'a' })).toBe('a');
    expect(progressTokenOf({ progressToken: 7 })).toBe(7);
    expect(progressTokenOf({ progressToken: {} })).toBeUndefined();
    expect(progressTokenOf(undefined)).toBeUndefined();
  });
});
