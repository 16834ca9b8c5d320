// Stand-ins for parts that load on first use. The MCP endpoint's cold start is mostly the AWS SDK's import (its
// parse and compile), and initialize, tools/list and ping need no AWS call: the store, executor and input requests
// are built from a chunk of their own (esbuild code splitting), loaded by the first call that needs them.
import { onceLoaded } from '../core/once-loaded.js';

/** The keys of T that are not async methods: a stand-in must have them at hand, since it cannot await the part. */
type ImmediateKeys<T> = { [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? never : K }[keyof T];

/**
 * A T whose async methods load the real T on their first call, then forward to it. `immediate` holds T's other
 * members (the type requires every one): a method added to T's interface that is not async fails to compile here
 * rather than returning a promise at run time.
 */
export function loadedOnFirstCall<T extends object>(load: () => Promise<T>, immediate: Pick<T, ImmediateKeys<T>>): T {
  const loaded = onceLoaded(load);
  const forwarders = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  return new Proxy(immediate as T, {
    get(target, key, receiver) {
      if (Reflect.has(target, key)) return Reflect.get(target, key, receiver) as unknown;
      // Not a thenable: a stand-in returned from an async function must not be awaited as a promise.
      if (typeof key === 'symbol' || key === 'then') return undefined;
      let forward = forwarders.get(key);
      if (forward === undefined) {
        forward = async (...args) => {
          const part = await loaded();
          return (Reflect.get(part, key) as (...args: unknown[]) => Promise<unknown>).apply(part, args);
        };
        forwarders.set(key, forward);
      }
      return forward;
    },
  });
}
