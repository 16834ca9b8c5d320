// OAuthStore over one DynamoDB table (layout in contract/oauth-table-schema.ts). Single use is a conditional write: a
// code or refresh token is marked used by the one UpdateItem whose condition holds, a pending authorization is taken by
// the one DeleteItem that finds it. Registration counters move together in a transaction, as a refresh token and its
// grant do.
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
import { tokenHash } from './oauth-proxy-context.js';
import { OAUTH_EXPIRY_MS_ATTRIBUTE, OAUTH_PARTITION_KEY, OAUTH_TTL_ATTRIBUTE } from '../contract/oauth-table-schema.js';
import {
  GrantRevokedError,
  type AuthorizationCode,
  type OAuthStore,
  type PendingAuthorization,
  type Redemption,
  type RefreshToken,
  type RegisteredClient,
  type RegistrationLimit,
  type RegistrationLimits,
} from './oauth-store.js';

/** How long a redeemed code or refresh token is remembered, so that a replay is recognised and its grant revoked. */
const REDEEMED_MEMORY_MS = 24 * 60 * 60 * 1000;
/** How long a revoked grant is remembered: longer than any refresh token of it lives. */
const REVOKED_GRANT_MEMORY_MS = 31 * 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

type Item = Record<string, unknown>;

const key = {
  client: (clientId: string) => `client#${clientId}`,
  pending: (id: string) => `pending#${id}`,
  code: (codeHash: string) => `code#${codeHash}`,
  refresh: (tokenHash: string) => `refresh#${tokenHash}`,
  grant: (grantId: string) => `grant#${grantId}`,
  // The source address is hashed: the table keeps no addresses.
  fromSource: (kind: string, source: string, hour: number) => `${kind}#source#${tokenHash(source)}#${hour}`,
  dayRegistrations: (day: number) => `registrations#day#${day}`,
};

/** A record as an item: its key, its fields, and its end in both forms (epoch ms for reads, epoch s for TTL). */
function itemOf<T extends { readonly expiresAt: number }>(pk: string, record: T): Item {
  const { expiresAt, ...fields } = record;
  return {
    [OAUTH_PARTITION_KEY]: pk,
    ...fields,
    [OAUTH_EXPIRY_MS_ATTRIBUTE]: expiresAt,
    [OAUTH_TTL_ATTRIBUTE]: Math.ceil(expiresAt / 1000),
  };
}

/** An update that `SET`s the item's end (`#expiresAtMs = :endMs, #ttl = :ttl`): its names, and its values. */
const END_NAMES = { '#expiresAtMs': OAUTH_EXPIRY_MS_ATTRIBUTE, '#ttl': OAUTH_TTL_ATTRIBUTE } as const;
const SET_END = '#expiresAtMs = :endMs, #ttl = :ttl';
function endValues(endMs: number): Item {
  return { ':endMs': endMs, ':ttl': Math.ceil(endMs / 1000) };
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
    // Metadata is the client's own JSON, kept as a string so that no value of it needs a DynamoDB type.
    await this.put(key.client(client.clientId), { ...client, metadata: JSON.stringify(client.metadata) });
  }

  async getClient(clientId: string, now: number): Promise<RegisteredClient | null> {
    const record = await this.get<Omit<RegisteredClient, 'metadata'> & { metadata: string }>(key.client(clientId), now);
    return record && { ...record, metadata: JSON.parse(record.metadata) as Record<string, unknown> };
  }

  async extendClient(clientId: string, expiresAt: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [OAUTH_PARTITION_KEY]: key.client(clientId) },
          UpdateExpression: `SET ${SET_END}`,
          ConditionExpression: 'attribute_exists(#pk) AND #expiresAtMs < :endMs',
          ExpressionAttributeNames: { '#pk': OAUTH_PARTITION_KEY, ...END_NAMES },
          ExpressionAttributeValues: endValues(expiresAt),
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async countRegistration(source: string, now: number, limits: RegistrationLimits): Promise<RegistrationLimit | null> {
    const hour = Math.floor(now / HOUR_MS);
    const day = Math.floor(now / DAY_MS);
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: this.counter(
                key.fromSource('registrations', source, hour),
                limits.perSourcePerHour,
                (hour + 1) * HOUR_MS,
              ),
            },
            { Update: this.counter(key.dayRegistrations(day), limits.perDay, (day + 1) * DAY_MS) },
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

  async countFromSource(kind: string, source: string, now: number, perHour: number): Promise<boolean> {
    const hour = Math.floor(now / HOUR_MS);
    try {
      await this.client.send(
        new UpdateCommand(this.counter(key.fromSource(kind, source, hour), perHour, (hour + 1) * HOUR_MS)),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** An update that adds one to a counter item below `limit`, which ends (and is removed by TTL) at `endMs`. */
  private counter(pk: string, limit: number, endMs: number) {
    return {
      TableName: this.tableName,
      Key: { [OAUTH_PARTITION_KEY]: pk },
      UpdateExpression: `ADD #count :one SET ${SET_END}`,
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'count', ...END_NAMES },
      ExpressionAttributeValues: { ':one': 1, ':limit': limit, ...endValues(endMs) },
    };
  }

  async putPendingAuthorization(pending: PendingAuthorization): Promise<void> {
    await this.put(key.pending(pending.id), pending);
  }

  async getPendingAuthorization(id: string, now: number): Promise<PendingAuthorization | null> {
    return this.get<PendingAuthorization>(key.pending(id), now);
  }

  async takePendingAuthorization(id: string, now: number): Promise<PendingAuthorization | null> {
    return this.take<PendingAuthorization>(key.pending(id), now);
  }

  async putAuthorizationCode(code: AuthorizationCode): Promise<void> {
    await this.put(key.code(code.codeHash), code);
  }

  async redeemAuthorizationCode(codeHash: string, now: number): Promise<Redemption<AuthorizationCode>> {
    return this.redeem<AuthorizationCode>(key.code(codeHash), now);
  }

  async putRefreshToken(token: RefreshToken): Promise<void> {
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: itemOf(key.refresh(token.tokenHash), token),
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': OAUTH_PARTITION_KEY },
              },
            },
            {
              // The grant remembers its current refresh token, so revoking the grant can reach it.
              Update: {
                TableName: this.tableName,
                Key: { [OAUTH_PARTITION_KEY]: key.grant(token.grantId) },
                UpdateExpression: `SET #current = :hash, ${SET_END}`,
                ConditionExpression: 'attribute_not_exists(#revokedAt)',
                ExpressionAttributeNames: {
                  '#current': 'currentRefreshTokenHash',
                  '#revokedAt': 'revokedAt',
                  ...END_NAMES,
                },
                ExpressionAttributeValues: { ':hash': token.tokenHash, ...endValues(token.expiresAt) },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed'
      )
        throw new GrantRevokedError(token.grantId);
      throw error;
    }
  }

  async redeemRefreshToken(tokenHash: string, now: number): Promise<Redemption<RefreshToken>> {
    return this.redeem<RefreshToken>(key.refresh(tokenHash), now);
  }

  async restoreRefreshToken(token: RefreshToken): Promise<void> {
    // Unconditional: the token's own used item is overwritten with what it was.
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: itemOf(key.refresh(token.tokenHash), token) }),
    );
  }

  async revokeGrant(grantId: string, now: number): Promise<void> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [OAUTH_PARTITION_KEY]: key.grant(grantId) },
        UpdateExpression: `SET #revokedAt = :now, ${SET_END}`,
        ExpressionAttributeNames: { '#revokedAt': 'revokedAt', ...END_NAMES },
        ExpressionAttributeValues: { ':now': now, ...endValues(now + REVOKED_GRANT_MEMORY_MS) },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const current = Attributes?.['currentRefreshTokenHash'];
    if (typeof current === 'string')
      await this.client.send(
        new DeleteCommand({ TableName: this.tableName, Key: { [OAUTH_PARTITION_KEY]: key.refresh(current) } }),
      );
  }

  /**
   * Marks a code or refresh token used, once: the item stays a day as a tombstone, so a replay is told apart from a
   * guess, and it gives up its upstream refresh token (which moves to whatever this redemption issues).
   */
  private async redeem<T>(pk: string, now: number): Promise<Redemption<T>> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [OAUTH_PARTITION_KEY]: pk },
          UpdateExpression: `SET #usedAt = :now, ${SET_END} REMOVE #upstreamRefreshToken`,
          ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(#usedAt) AND #expiresAtMs > :now',
          ExpressionAttributeNames: {
            '#pk': OAUTH_PARTITION_KEY,
            '#usedAt': 'usedAt',
            '#upstreamRefreshToken': 'upstreamRefreshToken',
            ...END_NAMES,
          },
          ExpressionAttributeValues: { ':now': now, ...endValues(now + REDEEMED_MEMORY_MS) },
          // The record as it was before this update: with its own end and its upstream refresh token.
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { outcome: 'redeemed', record: recordOf<T>(Attributes!) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The document client unmarshalls successful responses only: the failure carries raw attribute values.
      const item = error.Item ? (unmarshall(error.Item as Parameters<typeof unmarshall>[0]) as Item) : undefined;
      if (item === undefined || item['usedAt'] === undefined || !isLive(item, now)) return { outcome: 'unknown' };
      const { usedAt: _usedAt, ...record } = recordOf<Item>(item);
      return { outcome: 'reused', record: record as T };
    }
  }

  /** Reads a record with a consistent read; `null` when there is none or it is past its end. */
  private async get<T>(pk: string, now: number): Promise<T | null> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { [OAUTH_PARTITION_KEY]: pk }, ConsistentRead: true }),
    );
    return isLive(Item, now) ? recordOf<T>(Item) : null;
  }

  /** Stores a new record; never overwrites one. */
  private async put<T extends { readonly expiresAt: number }>(pk: string, record: T): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: itemOf(pk, record),
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
