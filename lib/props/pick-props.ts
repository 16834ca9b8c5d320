// The props a part of the construct takes, copied from the construct's own: only those set, so a part's defaults apply
// to the rest.

/** `source`'s `keys` that are set (not `undefined`). */
export function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(
    keys.filter((key) => source[key] !== undefined).map((key) => [key, source[key]]),
  ) as Partial<Pick<T, K>>;
}
