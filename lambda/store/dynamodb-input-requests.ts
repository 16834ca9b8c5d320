// InputRequestStore over the task table. Each request is one entry of the task item's `inputRequests` map,
// written with UpdateItem on its own path (atomic per key; a read of the task is still one GetItem); the keys still
// open are also a string set, `openInputKeys`, so "is anything still open?" is one condition (DynamoDB removes an
// emptied set). Answered entries stay, marked, so a late duplicate answer is recognised.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TASK_ATTRIBUTE as A } from '../contract/task-item-attributes.js';
import { DELIVERY_LEASE_MS, InputRequestState } from '../core/input-request.js';
import { type TaskRecord } from '../core/task.js';
import { ACTIVE_STATUSES, TaskStatus } from '../core/task-status.js';
import { taskKey } from '../core/task-key.js';
import { STATUS_IS_ACTIVE } from './dynamodb-conditions.js';
import type { ClaimOutcome, InputRequestStore, NewInputRequest } from './input-request-store.js';
import { inputRequestEntriesOf, type InputRequestEntry } from './task-item-codec.js';
import { PARTITION_KEY } from '../contract/task-table-schema.js';

type Entry = InputRequestEntry;

/** The attributes both writes of `record` name. */
const RECORD_NAMES = {
  '#pk': PARTITION_KEY,
  '#executionArn': A.executionArn,
  '#status': A.status,
  '#lastUpdatedAt': A.lastUpdatedAt,
  '#requests': A.inputRequests,
  '#open': A.openInputKeys,
};

export interface DynamoDbInputRequestsOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

export class DynamoDbInputRequests implements InputRequestStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoDbInputRequestsOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async record(key: string, executionArn: string, request: NewInputRequest): Promise<boolean> {
    const entry: Entry = {
      request: JSON.stringify(request.request),
      state: InputRequestState.Outstanding,
      askedAt: request.askedAt,
      taskToken: request.taskToken,
      ...(request.deadlineAt !== undefined ? { deadlineAt: request.deadlineAt } : {}),
    };
    const common = {
      TableName: this.tableName,
      Key: { [PARTITION_KEY]: key },
      ExpressionAttributeValues: {
        ':arn': executionArn,
        ':waiting': TaskStatus.InputRequired,
        ':at': request.askedAt,
        ':open': new Set([request.key]),
        ...STATUS_IS_ACTIVE.values,
      },
    };
    const guard = `attribute_exists(#pk) AND #executionArn = :arn AND ${STATUS_IS_ACTIVE.expression}`;
    // A nested path can only be set inside an existing map, and one expression cannot both create the map and set
    // a path in it: the first request of a task creates the map, later ones add their entry.
    try {
      await this.client.send(
        new UpdateCommand({
          ...common,
          UpdateExpression: 'SET #requests.#key = :entry, #status = :waiting, #lastUpdatedAt = :at ADD #open :open',
          ConditionExpression: `${guard} AND attribute_exists(#requests) AND attribute_not_exists(#requests.#key)`,
          ExpressionAttributeNames: {
            ...RECORD_NAMES,
            '#key': request.key,
          },
          ExpressionAttributeValues: { ...common.ExpressionAttributeValues, ':entry': entry },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const old = error.Item ? unmarshall(error.Item as Parameters<typeof unmarshall>[0]) : undefined;
      if (
        old === undefined ||
        old[A.executionArn] !== executionArn ||
        !ACTIVE_STATUSES.includes(old[A.status] as TaskStatus)
      )
        return false;
      const existing = inputRequestEntriesOf(old);
      if (existing?.[request.key] !== undefined) return true; // a retried ask: recorded already
      // Another ask created the map meanwhile.
      if (existing !== undefined) return this.record(key, executionArn, request);
    }
    try {
      await this.client.send(
        new UpdateCommand({
          ...common,
          UpdateExpression: 'SET #requests = :requests, #status = :waiting, #lastUpdatedAt = :at ADD #open :open',
          ConditionExpression: `${guard} AND attribute_not_exists(#requests)`,
          ExpressionAttributeNames: {
            ...RECORD_NAMES,
          },
          ExpressionAttributeValues: { ...common.ExpressionAttributeValues, ':requests': { [request.key]: entry } },
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // A parallel ask created the map between the two writes (or the task ended): try the entry write again.
      return this.record(key, executionArn, request);
    }
  }

  async claim(task: TaskRecord, key: string, claimId: string, now: number): Promise<ClaimOutcome> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: taskKey(task.owner, task.taskId) },
          UpdateExpression:
            'SET #requests.#key.#state = :delivering, #requests.#key.claimId = :claim, #requests.#key.claimedAt = :now',
          ConditionExpression:
            `#executionArn = :arn AND ${STATUS_IS_ACTIVE.expression} AND (#requests.#key.#state = :outstanding OR ` +
            '(#requests.#key.#state = :delivering AND #requests.#key.claimedAt <= :lapsed))',
          ExpressionAttributeNames: {
            '#executionArn': A.executionArn,
            '#status': A.status,
            '#requests': A.inputRequests,
            '#key': key,
            '#state': 'state',
          },
          ExpressionAttributeValues: {
            ':arn': task.executionArn,
            ':delivering': InputRequestState.Delivering,
            ':outstanding': InputRequestState.Outstanding,
            ':claim': claimId,
            ':now': now,
            ':lapsed': now - DELIVERY_LEASE_MS,
            ...STATUS_IS_ACTIVE.values,
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return {
        kind: 'claimed',
        taskToken: inputRequestEntriesOf(Attributes)![key]!.taskToken,
      };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const old = error.Item ? unmarshall(error.Item as Parameters<typeof unmarshall>[0]) : undefined;
      const entry = inputRequestEntriesOf(old)?.[key];
      if (old === undefined || old[A.executionArn] !== task.executionArn || entry === undefined)
        return { kind: 'unknown' };
      if (entry.state === InputRequestState.Delivering && ACTIVE_STATUSES.includes(old[A.status] as TaskStatus))
        return { kind: 'busy' };
      return { kind: 'settled' };
    }
  }

  async release(task: TaskRecord, key: string, claimId: string): Promise<void> {
    await this.ifClaimed(
      task,
      key,
      claimId,
      'SET #requests.#key.#state = :outstanding REMOVE #requests.#key.claimId, #requests.#key.claimedAt',
      {
        ':outstanding': InputRequestState.Outstanding,
      },
    );
  }

  async settle(
    task: TaskRecord,
    key: string,
    claimId: string,
    state: 'answered' | 'expired',
    now: number,
  ): Promise<void> {
    // lastUpdatedAt moves, so a subscription (notifications/tasks) shows the shorter list of open requests.
    const settled = await this.ifClaimed(
      task,
      key,
      claimId,
      'SET #requests.#key.#state = :state, #requests.#key.settledAt = :now, #lastUpdatedAt = :now ' +
        'REMOVE #requests.#key.claimId DELETE #open :open',
      {
        ':state': state,
        ':now': now,
        ':open': new Set([key]),
      },
    );
    if (settled === null || settled[A.openInputKeys] !== undefined || settled[A.status] !== TaskStatus.InputRequired)
      return;
    // Nothing is open any more: back to working, unless a new ask arrived meanwhile (it re-adds its key) or the task
    // ended.
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: taskKey(task.owner, task.taskId) },
          UpdateExpression: 'SET #status = :working, #lastUpdatedAt = :now REMOVE #statusMessage',
          ConditionExpression: '#executionArn = :arn AND #status = :waiting AND attribute_not_exists(#open)',
          ExpressionAttributeNames: {
            '#executionArn': A.executionArn,
            '#status': A.status,
            '#lastUpdatedAt': A.lastUpdatedAt,
            '#statusMessage': A.statusMessage,
            '#open': A.openInputKeys,
          },
          ExpressionAttributeValues: {
            ':arn': task.executionArn,
            ':working': TaskStatus.Working,
            ':waiting': TaskStatus.InputRequired,
            ':now': now,
          },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** Applies `update` to the request while `claimId` holds it; the item after, or `null` when the claim was lost. */
  private async ifClaimed(
    task: TaskRecord,
    key: string,
    claimId: string,
    update: string,
    values: Record<string, unknown>,
  ): Promise<Record<string, unknown> | null> {
    const names: Record<string, string> = {
      '#executionArn': A.executionArn,
      '#requests': A.inputRequests,
      '#key': key,
    };
    if (update.includes('#state')) names['#state'] = 'state';
    if (update.includes('#lastUpdatedAt')) names['#lastUpdatedAt'] = A.lastUpdatedAt;
    if (update.includes('#open')) names['#open'] = A.openInputKeys;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: taskKey(task.owner, task.taskId) },
          UpdateExpression: update,
          ConditionExpression: '#executionArn = :arn AND #requests.#key.claimId = :claim',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':arn': task.executionArn, ':claim': claimId, ...values },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ?? null;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }
}
