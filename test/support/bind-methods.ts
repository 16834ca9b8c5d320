// Real parts with one method replaced: the fault-injection tests wrap the real store and executor this way.

/** The object's methods bound to it, so a test can replace one method and keep the rest. */
export function bind<T extends object>(target: T): T {
  const proto = Object.getPrototypeOf(target) as object;
  const bound: Record<string, unknown> = {};
  for (const name of Object.getOwnPropertyNames(proto)) {
    const value = (target as Record<string, unknown>)[name];
    if (name !== 'constructor' && typeof value === 'function') bound[name] = value.bind(target);
  }
  return bound as T;
}
