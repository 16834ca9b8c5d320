// The OAuth proxy's DynamoDB table layout, in one place for the store, the local stack and the CDK construct, and
// OAUTH_TABLE, the descriptor both the construct and the local stack create the table from.
import type { TableDescriptor } from './table-descriptor.js';

/** Partition key: `<kind>#<id>`; the id of a code or refresh token is the token's SHA-256, never the token. */
export const OAUTH_PARTITION_KEY = 'pk';
/** Epoch seconds; DynamoDB's TTL attribute. Reads treat an item past {@link OAUTH_EXPIRY_MS_ATTRIBUTE} as gone. */
export const OAUTH_TTL_ATTRIBUTE = 'expiresAt';
/** Epoch ms of the item's end, as reads judge it (the TTL attribute has whole seconds and is swept lazily). */
export const OAUTH_EXPIRY_MS_ATTRIBUTE = 'expiresAtMs';

/**
 * The OAuth proxy's table: client registrations, pending sign-ins, codes and refresh tokens (by their hashes),
 * registration counters. One partition key, no index, TTL on {@link OAUTH_TTL_ATTRIBUTE}.
 */
export const OAUTH_TABLE: TableDescriptor = {
  partitionKey: { name: OAUTH_PARTITION_KEY, type: 'S' },
  ttlAttribute: OAUTH_TTL_ATTRIBUTE,
  indexes: [],
};
