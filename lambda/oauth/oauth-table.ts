// The OAuth proxy's DynamoDB table layout, in one place for the store, the local stack and the CDK construct.

/** Partition key: `<kind>#<id>`; the id of a code or refresh token is the token's SHA-256, never the token. */
export const OAUTH_PARTITION_KEY = 'pk';
/** Epoch seconds; DynamoDB's TTL attribute. Reads treat an item past {@link OAUTH_EXPIRY_MS_ATTRIBUTE} as gone. */
export const OAUTH_TTL_ATTRIBUTE = 'expiresAt';
/** Epoch ms of the item's end, as reads judge it (the TTL attribute has whole seconds and is swept lazily). */
export const OAUTH_EXPIRY_MS_ATTRIBUTE = 'expiresAtMs';
