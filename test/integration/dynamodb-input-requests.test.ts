// The InputRequestStore contract, held against DynamoDB Local through the real AWS SDK, on the task table.
import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_LEASE_MS, inputKeyFor, type InputRequestMessage } from '../../lambda/core/input-request.js';
import { RetentionClock, TaskOrigin, TaskStatus, type TaskRecord } from '../../lambda/core/task.js';
import { executionNameFor, taskKey } from '../../lambda/core/task-key.js';
import { DynamoDbInputRequests } from '../../lambda/store/dynamodb-input-requests.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import { createTestTable, localAwsClients } from '../support/local-backend.js';

let tableName: string;
const client = () => DynamoDBDocumentClient.from(localAwsClients().dynamoDb);
const inputs = () => new DynamoDbInputRequests({ client: client(), tableName });
const tasks = () => new DynamoDbTaskStore({ client: client(), tableName });
const APPROVE: InputRequestMessage = {
  method: 'elicitation/create',
  params: { message: 'Approve?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
};

async function storedTask(status: TaskStatus = TaskStatus.Working): Promise<TaskRecord & { key: string }> {
  const owner = `owner-${randomUUID()}`;
  const taskId = randomUUID();
  const key = taskKey(owner, taskId);
  const task: TaskRecord = {
    taskId,
    owner,
    toolName: 'refund_order',
    origin: TaskOrigin.TasksExtension,
    executionArn: `arn:aws:states:us-east-1:000000000000:execution:refund-order:${executionNameFor(key, '0123456789')}`,
    status,
    createdAt: Date.now(),
    lastUpdatedAt: Date.now(),
    retention: { ms: 600_000, clock: RetentionClock.FromCreation },
    pollIntervalMs: 1_000,
    inputDigest: 'digest',
  };
  await tasks().create(task);
  return { ...task, key };
}

const ask = (token: string, askedAt = Date.now()) => ({
  key: inputKeyFor(token),
  request: APPROVE,
  taskToken: token,
  askedAt,
  deadlineAt: askedAt + 60_000,
});
const read = async (task: TaskRecord) => (await tasks().get(task.owner, task.taskId))!;

beforeAll(async () => {
  tableName = await createTestTable();
});

describe('DynamoDbInputRequests', () => {
  it('records a request on the task and moves it to input_required; a read shows it without the token', async () => {
    const task = await storedTask();
    expect(await inputs().record(task.key, task.executionArn, ask('token-1'))).toBe(true);
    const stored = await read(task);
    expect(stored.status).toBe(TaskStatus.InputRequired);
    expect(stored.inputRequests).toEqual({
      [inputKeyFor('token-1')]: expect.objectContaining({
        key: inputKeyFor('token-1'),
        request: APPROVE,
        state: 'outstanding',
      }),
    });
    expect(JSON.stringify(stored)).not.toContain('token-1');
  });

  it('keeps several requests at once (Parallel, Map), and a retried ask records nothing twice', async () => {
    const task = await storedTask();
    await Promise.all(['a', 'b', 'c'].map((token) => inputs().record(task.key, task.executionArn, ask(token))));
    expect(await inputs().record(task.key, task.executionArn, ask('a'))).toBe(true);
    expect(Object.keys((await read(task)).inputRequests!)).toHaveLength(3);
  });

  it('refuses to record on a finished task or for another execution', async () => {
    const task = await storedTask(TaskStatus.Completed);
    expect(await inputs().record(task.key, task.executionArn, ask('x'))).toBe(false);
    const live = await storedTask();
    expect(await inputs().record(live.key, `${live.executionArn}-other`, ask('x'))).toBe(false);
    expect(await inputs().record(taskKey('nobody', 'nothing'), live.executionArn, ask('x'))).toBe(false);
  });

  it('hands the token to one claim at a time; a settled request is never claimed again', async () => {
    const task = await storedTask();
    const key = inputKeyFor('t');
    await inputs().record(task.key, task.executionArn, ask('t'));
    const now = Date.now();
    const claims = await Promise.all([inputs().claim(task, key, 'c1', now), inputs().claim(task, key, 'c2', now)]);
    expect(claims.filter((claim) => claim.kind === 'claimed')).toEqual([{ kind: 'claimed', taskToken: 't' }]);
    expect(claims.filter((claim) => claim.kind === 'busy')).toHaveLength(1);
    const holder = claims[0]!.kind === 'claimed' ? 'c1' : 'c2';
    await inputs().settle(task, key, holder, 'answered', now);
    expect(await inputs().claim(task, key, 'c3', now)).toEqual({ kind: 'settled' });
    expect(await inputs().claim(task, 'unknown-key', 'c4', now)).toEqual({ kind: 'unknown' });
  });

  it('reopens a released claim, and lets a lapsed claim be taken over', async () => {
    const task = await storedTask();
    const key = inputKeyFor('t');
    await inputs().record(task.key, task.executionArn, ask('t'));
    const now = Date.now();
    expect((await inputs().claim(task, key, 'c1', now)).kind).toBe('claimed');
    await inputs().release(task, key, 'c1');
    expect((await inputs().claim(task, key, 'c2', now)).kind).toBe('claimed');
    expect((await inputs().claim(task, key, 'c3', now + 1)).kind).toBe('busy');
    expect((await inputs().claim(task, key, 'c3', now + DELIVERY_LEASE_MS)).kind).toBe('claimed');
    // The lapsed holder's late settle changes nothing: its claim is gone.
    await inputs().settle(task, key, 'c2', 'answered', now);
    expect((await read(task)).inputRequests![key]!.state).toBe('delivering');
  });

  it('goes back to working only when the last open request is settled; answered ones stay, marked', async () => {
    const task = await storedTask();
    await inputs().record(task.key, task.executionArn, ask('a'));
    await inputs().record(task.key, task.executionArn, ask('b'));
    const now = Date.now();
    await inputs().claim(task, inputKeyFor('a'), 'ca', now);
    await inputs().settle(task, inputKeyFor('a'), 'ca', 'answered', now);
    expect((await read(task)).status).toBe(TaskStatus.InputRequired);
    await inputs().claim(task, inputKeyFor('b'), 'cb', now);
    await inputs().settle(task, inputKeyFor('b'), 'cb', 'expired', now);
    const stored = await read(task);
    expect(stored.status).toBe(TaskStatus.Working);
    expect(
      Object.values(stored.inputRequests!)
        .map((request) => request.state)
        .sort(),
    ).toEqual(['answered', 'expired']);
    const { Item } = await client().send(new GetCommand({ TableName: tableName, Key: { pk: task.key } }));
    expect(Item!['openInputKeys']).toBeUndefined();
  });

  it('is never moved from input_required to working by execution news', async () => {
    const task = await storedTask();
    await inputs().record(task.key, task.executionArn, ask('a'));
    await expect(tasks().update(task, { status: TaskStatus.Working, at: Date.now() })).rejects.toMatchObject({
      name: 'IllegalTransitionError',
      from: TaskStatus.InputRequired,
    });
    expect((await tasks().update(task, { status: TaskStatus.Cancelled, at: Date.now() })).status).toBe(
      TaskStatus.Cancelled,
    );
  });
});
