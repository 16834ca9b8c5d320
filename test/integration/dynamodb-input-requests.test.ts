// The DynamoDB input-request store on DynamoDB Local through the real AWS SDK, on the task table: its contract suite
// (test/contract/input-request-store-contract.ts), and what only DynamoDB has: the set of open keys on the item.
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { TASK_ATTRIBUTE } from '../../lambda/contract/task-item-attributes.js';
import { PARTITION_KEY } from '../../lambda/contract/task-table-schema.js';
import { inputKeyFor } from '../../lambda/core/input-request.js';
import { taskKey } from '../../lambda/core/task-key.js';
import { DynamoDbInputRequests } from '../../lambda/store/dynamodb-input-requests.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import { inputRequestStoreContract } from '../contract/input-request-store-contract.js';
import { ManualClock, newTask } from '../contract/task-fixtures.js';
import { createTestTable, localAwsClients } from '../support/local-backend.js';

let tableName: string;

/** The stores on the test table, the task store reading a clock of its own started at the real time. */
function stores() {
  const clock = new ManualClock(Date.now());
  const client = DynamoDBDocumentClient.from(localAwsClients().dynamoDb);
  const tasks = new DynamoDbTaskStore({ client, tableName, clock });
  return { clock, client, tasks, inputs: new DynamoDbInputRequests({ client, tableName }) };
}

beforeAll(async () => {
  tableName = await createTestTable();
});

inputRequestStoreContract('DynamoDbInputRequests', () => {
  const { clock, tasks, inputs } = stores();
  return { inputs, tasks, clock };
});

describe('DynamoDbInputRequests items', () => {
  it('keeps the open keys as a set on the task item, which DynamoDB removes once the last is settled', async () => {
    const { clock, client, tasks, inputs } = stores();
    const task = newTask(clock);
    await tasks.create(task);
    const key = taskKey(task.owner, task.taskId);
    const openKeys = async () =>
      (await client.send(new GetCommand({ TableName: tableName, Key: { [PARTITION_KEY]: key }, ConsistentRead: true })))
        .Item?.[TASK_ATTRIBUTE.openInputKeys];
    const ask = { request: { method: 'roots/list' } as const, taskToken: 't', askedAt: clock.now() };
    await inputs.record(key, task.executionArn, { ...ask, key: inputKeyFor('t') });
    expect(await openKeys()).toEqual(new Set([inputKeyFor('t')]));
    await inputs.claim(task, inputKeyFor('t'), 'c1', clock.now());
    await inputs.settle(task, inputKeyFor('t'), 'c1', 'answered', clock.now());
    expect(await openKeys()).toBeUndefined();
  });
});
