// The task table's stream into the projector: records as DynamoDB Streams delivers them (images in DynamoDB's JSON),
// handed over one by one, in order; the first that fails is reported, and nothing after it is projected, so the
// mapping retries from it and no change of a task overtakes an earlier one.
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../lambda/core/clock.js';
import { TASK_ATTRIBUTE as A } from '../../../lambda/contract/task-item-attributes.js';
import { TaskEventChange } from '../../../lambda/core/task-event.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import { TaskEventProjector, type TaskTableChange } from '../../../lambda/events/task-event-projector.js';
import { createTaskEventStreamHandler } from '../../../lambda/handlers/task-event-stream-core.js';
import { InMemoryTaskEventStore } from '../../../lambda/store/in-memory-task-event-store.js';
import { taskToItem, type Item } from '../../../lambda/store/task-item-codec.js';
import { ManualClock, newTask } from '../../contract/task-fixtures.js';
import { RecordingLogger } from '../../support/in-memory-backend.js';

const START = Date.UTC(2030, 0, 1);

/** An image as the stream carries it: DynamoDB's JSON. */
function image(item: Item): Record<string, AttributeValue> {
  return marshall(item, { removeUndefinedValues: true }) as unknown as Record<string, AttributeValue>;
}

function record(
  kind: 'INSERT' | 'MODIFY' | 'REMOVE',
  sequenceNumber: string | undefined,
  images: { oldItem?: Item; newItem?: Item },
): DynamoDBRecord {
  return {
    eventID: `id-${sequenceNumber}`,
    eventName: kind,
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    dynamodb: {
      Keys: { pk: { S: 'key' } },
      StreamViewType: 'NEW_AND_OLD_IMAGES',
      ...(sequenceNumber === undefined ? {} : { SequenceNumber: sequenceNumber }),
      ...(images.oldItem ? { OldImage: image(images.oldItem) } : {}),
      ...(images.newItem ? { NewImage: image(images.newItem) } : {}),
    },
  };
}

const streamEvent = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

/** A projector that records each change and throws for the positions in `failAt`. */
function recordingProjector(failAt: readonly string[] = []) {
  const seen: TaskTableChange[] = [];
  const projector = {
    async project(change: TaskTableChange): Promise<void> {
      seen.push(change);
      if (failAt.includes(change.position)) throw new Error(`projection of ${change.position} failed`);
    },
  } as unknown as TaskEventProjector;
  return { seen, projector };
}

/** A task item with what other writers keep on it: nested maps, a set, progress numbers. */
function richItem(): Item {
  const task = newTask(new ManualClock(START), { owner: 'alice', taskId: 'task-1' });
  return {
    ...taskToItem(task, 3_600_000),
    [A.inputRequests]: {
      'input-1': { request: '{"method":"roots/list"}', state: 'outstanding', askedAt: START, taskToken: 'token' },
    },
    [A.openInputKeys]: new Set(['input-1']),
    [A.progressAt]: START + 1,
    [A.progressCount]: 3,
    [A.progressTotal]: 5,
    [A.toolError]: false,
  };
}

describe('createTaskEventStreamHandler', () => {
  it('hands every record to the projector in order, its images back as plain items', async () => {
    const { seen, projector } = recordingProjector();
    const handle = createTaskEventStreamHandler(projector, new RecordingLogger());
    const before = richItem();
    const after = { ...before, [A.status]: 'completed', [A.progressCount]: 5 };
    const response = await handle(
      streamEvent(
        record('INSERT', '100', { newItem: before }),
        record('MODIFY', '200', { oldItem: before, newItem: after }),
        record('REMOVE', '300', { oldItem: after }),
      ),
    );
    expect(response).toEqual({ batchItemFailures: [] });
    expect(seen).toEqual([
      { kind: 'INSERT', position: '100', newItem: before },
      { kind: 'MODIFY', position: '200', oldItem: before, newItem: after },
      { kind: 'REMOVE', position: '300', oldItem: after },
    ]);
    expect(seen[0]?.newItem?.[A.createdAt]).toBe(START);
    expect(seen[0]?.newItem?.[A.openInputKeys]).toEqual(new Set(['input-1']));
  });

  it('passes a record without images without them', async () => {
    const { seen, projector } = recordingProjector();
    await createTaskEventStreamHandler(projector, new RecordingLogger())(streamEvent(record('REMOVE', '5', {})));
    expect(seen).toEqual([{ kind: 'REMOVE', position: '5' }]);
  });

  it('skips a record without a sequence number or event name', async () => {
    const { seen, projector } = recordingProjector();
    const nameless = record('INSERT', '2', { newItem: richItem() });
    delete nameless.eventName;
    const response = await createTaskEventStreamHandler(
      projector,
      new RecordingLogger(),
    )(streamEvent(record('INSERT', undefined, { newItem: richItem() }), nameless, record('REMOVE', '3', {})));
    expect(response).toEqual({ batchItemFailures: [] });
    expect(seen.map((change) => change.position)).toEqual(['3']);
  });

  it('reports the first record that fails by its sequence number, and projects nothing after it', async () => {
    const { seen, projector } = recordingProjector(['200', '300']);
    const logger = new RecordingLogger();
    const item = richItem();
    const response = await createTaskEventStreamHandler(
      projector,
      logger,
    )(
      streamEvent(
        record('INSERT', '100', { newItem: item }),
        record('MODIFY', '200', { oldItem: item, newItem: item }),
        record('MODIFY', '300', { oldItem: item, newItem: item }),
        record('MODIFY', '400', { oldItem: item, newItem: item }),
      ),
    );
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '200' }] });
    expect(seen.map((change) => change.position)).toEqual(['100', '200']);
    expect(logger.records).toContainEqual({
      level: 'warn',
      message: expect.any(String),
      extra: { position: '200', error: 'projection of 200 failed' },
    });
  });

  it('answers an empty batch with no failures', async () => {
    const { seen, projector } = recordingProjector();
    expect(await createTaskEventStreamHandler(projector, new RecordingLogger())(streamEvent())).toEqual({
      batchItemFailures: [],
    });
    expect(seen).toEqual([]);
  });

  it("records the task's event from a marshalled image through the real projector", async () => {
    const clock = new ManualClock(START);
    const events = new InMemoryTaskEventStore({ clock });
    const port: Clock = { now: () => clock.now(), sleep: async () => {} };
    const projector = new TaskEventProjector({ events, clock: port, logger: new RecordingLogger() });
    const handle = createTaskEventStreamHandler(projector, new RecordingLogger());
    const item = richItem();
    const waiting = { ...item, [A.status]: TaskStatus.InputRequired, [A.lastUpdatedAt]: START + 7 };
    await handle(
      streamEvent(
        record('INSERT', '100', { newItem: item }),
        record('MODIFY', '200', { oldItem: item, newItem: waiting }),
      ),
    );
    const log = await events.readAfter('alice', 'task-1', 0, 10);
    expect(log.map(({ seq, at, changes }) => ({ seq, at, changes }))).toEqual([
      { seq: 1, at: START, changes: [TaskEventChange.Status] },
      { seq: 2, at: START + 7, changes: [TaskEventChange.Status] },
    ]);
    expect(log[1]?.task).toEqual({
      taskId: 'task-1',
      toolName: 'text_stats',
      status: TaskStatus.InputRequired,
      statusMessage: '3 of 5',
      progress: { progress: 3, total: 5 },
      openInputRequests: ['input-1'],
    });
  });
});
