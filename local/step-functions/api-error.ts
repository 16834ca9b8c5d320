// Step Functions API errors as the AWS JSON 1.0 protocol reports them, plus typed readers for request fields.

/** An error answered as `{"__type": type, "message": message}`; the SDK maps `type` to its exception class. */
export class SfnApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly statusCode = 400,
  ) {
    super(message);
    this.name = type;
  }
}

export type RequestBody = Readonly<Record<string, unknown>>;

/** AWS answers a missing required member with ValidationException (not a client-side check in SDK v3). */
export function requireString(body: RequestBody, field: string): string {
  const value = optionalString(body, field);
  if (value === undefined) {
    throw new SfnApiError(
      'ValidationException',
      `1 validation error detected: Value null at '${field}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return value;
}

/** A present member of the wrong JSON type is a deserialisation failure on the AWS side. */
export function optionalString(body: RequestBody, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new SfnApiError('SerializationException', `Expected a string for member '${field}'`);
  }
  return value;
}

export function optionalInteger(body: RequestBody, field: string, min: number, max: number): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new SfnApiError('SerializationException', `Expected an integer for member '${field}'`);
  }
  if (value < min || value > max) {
    throw new SfnApiError(
      'ValidationException',
      `1 validation error detected: Value '${value}' at '${field}' failed to satisfy constraint: ` +
        `Member must have value between ${min} and ${max}`,
    );
  }
  return value;
}

export function optionalEnum<T extends string>(body: RequestBody, field: string, allowed: readonly T[]): T | undefined {
  const value = optionalString(body, field);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new SfnApiError(
      'ValidationException',
      `1 validation error detected: Value '${value}' at '${field}' failed to satisfy constraint: ` +
        `Member must satisfy enum value set: [${allowed.join(', ')}]`,
    );
  }
  return value as T;
}
