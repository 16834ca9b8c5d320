// OAuthStore over one DynamoDB table (layout in oauth-table.ts). Single use is a conditional write: a code is marked
// used by the one UpdateItem whose condition holds, a pending authorization or refresh token is taken by the one
// DeleteItem that finds it. Registration counters move together in a transaction.
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createHash } from 'node:crypto';
import { OAUTH_EXPIRY_MS_ATTRIBUTE, OAUTH_PARTITION_KEY, OAUTH_TTL_ATTRIBUTE } from './oauth-table.js';
import type {
  AuthorizationCode,
  CodeRedemption,
  OAuthStore,
  PendingAuthorization,
  RefreshToken,
  RegisteredClient,
  RegistrationLimit,
  RegistrationLimits,
} from './oauth-store.js';

/** How long a redeemed code is remembered, so that a replay is recognised and the tokens it gave are revoked. */
const REDEEMED_CODE_MEMORY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

type Item = Record<string, unknown>;

const key = {
  client: (clientId: string) => `client#${clientId}`,
  pending: (id: string) => `pending#${id}`,
  code: (codeHash: string) => `code#${codeHash}`,
  refresh: (tokenHash: string) => `refresh#${tokenHash}`,
  // The source address is hashed: the table keeps no addresses.
  sourceRegistrations: (source: string, hour: number) =>
    `registrations#source#${createHash('sha256').update(source).digest('hex')}#${hour}`,
  dayRegistrations: (day: number) => `registrations#day#${day}`,
};

function expiry(expiresAtMs: number): Item {
  return { [OAUTH_EXPIRY_MS_ATTRIBUTE]: expiresAtMs, [OAUTH_TTL_ATTRIBUTE]: Math.ceil(expiresAtMs / 1000) };
}

function isLive(item: Item | undefined, now: number): item is Item {
  return (
    item !== undefined && typeof item[OAUTH_EXPIRY_MS_ATTRIBUTE] === 'number' && item[OAUTH_EXPIRY_MS_ATTRIBUTE] > now
  );
}

/** Strips the table's own attributes from an item, leaving the record. */
function recordOf<T>(item: Item): T {
  const {
    [OAUTH_PARTITION_KEY]: _pk,
    [OAUTH_TTL_ATTRIBUTE]: _ttl,
    [OAUTH_EXPIRY_MS_ATTRIBUTE]: expiresAt,
    ...rest
  } = item;
  return { ...rest, expiresAt } as T;
}

export interface DynamoDbOAuthStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

export class DynamoDbOAuthStore implements OAuthStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoDbOAuthStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async putClient(client: RegisteredClient): Promise<void> {
    const { expiresAt, metadata, ...rest } = client;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        // Metadata is the client's own JSON, kept as a string so that no value of it needs a DynamoDB type.
        Item: {
          [OAUTH_PARTITION_KEY]: key.client(client.clientId),
          ...rest,
          metadata: JSON.stringify(metadata),
          ...expiry(expiresAt),
        },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': OAUTH_PARTITION_KEY },
      }),
    );
  }

  async getClient(clientId: string, now: number): Promise<RegisteredClient | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [OAUTH_PARTITION_KEY]: key.client(clientId) },
        ConsistentRead: true,
      }),
    );
    if (!isLive(Item, now)) return null;
    const record = recordOf<RegisteredClient & { metadata: string }>(Item);
    return { ...record, metadata: JSON.parse(record.metadata) as Record<string, unknown> };
  }

  async extendClient(clientId: string, expiresAt: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [OAUTH_PARTITION_KEY]: key.client(clientId) },
          UpdateExpression: 'SET #expiresAtMs = :expiresAtMs, #ttl = :ttl',
          ConditionExpression: 'attribute_exists(#pk) AND #expiresAtMs < :expiresAtMs',
          ExpressionAttributeNames: {
            '#pk': OAUTH_PARTITION_KEY,
            '#expiresAtMs': OAUTH_EXPIRY_MS_ATTRIBUTE,
            '#ttl': OAUTH_TTL_ATTRIBUTE,
          },
          ExpressionAttributeValues: { ':expiresAtMs': expiresAt, ':ttl': Math.ceil(expiresAt / 1000) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async countRegistration(source: string, now: number, limits: RegistrationLimits): Promise<RegistrationLimit | null> {
    const hour = Math.floor(now / HOUR_MS);
    const day = Math.floor(now / DAY_MS);
    const counter = (pk: string, limit: number, endMs: number) => ({
      Update: {
        TableName: this.tableName,
        Key: { [OAUTH_PARTITION_KEY]: pk },
        UpdateExpression: 'ADD #count :one SET #expiresAtMs = :endMs, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: {
          '#count': 'count',
          '#expiresAtMs': OAUTH_EXPIRY_MS_ATTRIBUTE,
          '#ttl': OAUTH_TTL_ATTRIBUTE,
        },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':endMs': endMs, ':ttl': Math.ceil(endMs / 1000) },
      },
    });
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            counter(key.sourceRegistrations(source, hour), limits.perSourcePerHour, (hour + 1) * HOUR_MS),
            counter(key.dayRegistrations(day), limits.perDay, (day + 1) * DAY_MS),
          ],
        }),
      );
      return null;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      if (reasons[0]?.Code === 'ConditionalCheckFailed') return 'per-source';
      if (reasons[1]?.Code === 'ConditionalCheckFailed') return 'total';
      throw error;
    }
  }

  async putPendingAuthorization(pending: PendingAuthorization): Promise<void> {
    await this.put(key.pending(pending.id), pending);
  }

  async getPendingAuthorization(id: string, now: number): Promise<PendingAuthorization | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [OAUTH_PARTITION_KEY]: key.pending(id) },
        ConsistentRead: true,
      }),
    );
    return isLive(Item, now) ? recordOf<PendingAuthorization>(Item) : null;
  }

  async takePendingAuthorization(id: string, now: number): Promise<PendingAuthorization | null> {
    return this.take<PendingAuthorization>(key.pending(id), now);
  }

  async putAuthorizationCode(code: AuthorizationCode): Promise<void> {
    await this.put(key.code(code.codeHash), code);
  }

  async redeemAuthorizationCode(codeHash: string, now: number): Promise<CodeRedemption> {
    const remembered = now + REDEEMED_CODE_MEMORY_MS;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [OAUTH_PARTITION_KEY]: key.code(codeHash) },
          // The code stays readable after its use, so a replay is told apart from a guess and revokes what it gave.
          // The upstream refresh token moves to the refresh token this redemption issues: the used code keeps none.
          UpdateExpression:
            'SET #usedAt = :now, #codeExpiresAt = #expiresAtMs, #expiresAtMs = :remembered, #ttl = :ttl ' +
            'REMOVE #upstreamRefreshToken',
          ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(#usedAt) AND #expiresAtMs > :now',
          ExpressionAttributeNames: {
            '#pk': OAUTH_PARTITION_KEY,
            '#usedAt': 'usedAt',
            '#codeExpiresAt': 'codeExpiresAt',
            '#expiresAtMs': OAUTH_EXPIRY_MS_ATTRIBUTE,
            '#ttl': OAUTH_TTL_ATTRIBUTE,
            '#upstreamRefreshToken': 'upstreamRefreshToken',
          },
          ExpressionAttributeValues: { ':now': now, ':remembered': remembered, ':ttl': Math.ceil(remembered / 1000) },
          // The code as it was before this update: the grant with its own end and its upstream refresh token.
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { outcome: 'redeemed', code: recordOf<AuthorizationCode>(Attributes!) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The document client unmarshalls successful responses only: the failure carries raw attribute values.
      const item = error.Item ? (unmarshall(error.Item as Parameters<typeof unmarshall>[0]) as Item) : undefined;
      if (item === undefined || item['usedAt'] === undefined || !isLive(item, now)) return { outcome: 'unknown' };
      const refreshTokenHash = item['refreshTokenHash'];
      return {
        outcome: 'reused',
        code: this.codeOf(item),
        ...(typeof refreshTokenHash === 'string' ? { refreshTokenHash } : {}),
      };
    }
  }

  async recordCodeRefreshToken(codeHash: string, refreshTokenHash: string): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [OAUTH_PARTITION_KEY]: key.code(codeHash) },
        UpdateExpression: 'SET #refreshTokenHash = :hash',
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: { '#pk': OAUTH_PARTITION_KEY, '#refreshTokenHash': 'refreshTokenHash' },
        ExpressionAttributeValues: { ':hash': refreshTokenHash },
      }),
    );
  }

  async putRefreshToken(token: RefreshToken): Promise<void> {
    await this.put(key.refresh(token.tokenHash), token);
  }

  async takeRefreshToken(tokenHash: string, now: number): Promise<RefreshToken | null> {
    return this.take<RefreshToken>(key.refresh(tokenHash), now);
  }

  async deleteRefreshToken(tokenHash: string): Promise<void> {
    await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: { [OAUTH_PARTITION_KEY]: key.refresh(tokenHash) } }),
    );
  }

  private codeOf(item: Item): AuthorizationCode {
    const { usedAt: _usedAt, refreshTokenHash: _refresh, codeExpiresAt, ...rest } = recordOf<Item>(item);
    return { ...rest, expiresAt: codeExpiresAt } as unknown as AuthorizationCode;
  }

  private async put(pk: string, record: { readonly expiresAt: number }): Promise<void> {
    const { expiresAt, ...rest } = record;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { [OAUTH_PARTITION_KEY]: pk, ...rest, ...expiry(expiresAt) },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': OAUTH_PARTITION_KEY },
      }),
    );
  }

  /** Deletes the item and returns what it held, if it was live: of two concurrent takes, one gets it. */
  private async take<T>(pk: string, now: number): Promise<T | null> {
    const { Attributes } = await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: { [OAUTH_PARTITION_KEY]: pk }, ReturnValues: 'ALL_OLD' }),
    );
    return isLive(Attributes, now) ? recordOf<T>(Attributes) : null;
  }
}
