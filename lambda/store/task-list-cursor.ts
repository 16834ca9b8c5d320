// The cursor of a task list page: DynamoDB's LastEvaluatedKey of the owner index, opaque to the client and bound to
// its owner, so a doctored cursor is refused before it reaches a query.
import { InvalidCursorError } from '../core/errors.js';
import { OWNER_INDEX_PARTITION_KEY, OWNER_INDEX_SORT_KEY, PARTITION_KEY } from '../contract/task-table-schema.js';

type Key = Record<string, unknown>;

export function encodeCursor(key: Key): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The start key a cursor holds; throws `InvalidCursorError` unless it is one this owner's listing made. */
export function decodeCursor(cursor: string, owner: string): Key {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch (error) {
    throw new InvalidCursorError({ cause: error });
  }
  const valid =
    typeof key === 'object' &&
    key !== null &&
    Object.keys(key).length === 3 &&
    typeof (key as Key)[PARTITION_KEY] === 'string' &&
    // A safe integer, as every createdAt is: a doctored 1e308 would fail the query as an internal error.
    Number.isSafeInteger((key as Key)[OWNER_INDEX_SORT_KEY]) &&
    (key as Key)[OWNER_INDEX_PARTITION_KEY] === owner;
  if (!valid) throw new InvalidCursorError();
  return key as Key;
}
