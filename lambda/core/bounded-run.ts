// A scheduled run over a batch of items (the expiry sweep's, the reconciler's): a few at a time, and none begun once
// the run's deadline has passed, so that the run ends within its function's timeout.
import type { Clock } from './clock.js';

export interface BoundedRunOptions {
  /** Items handled at once. */
  readonly concurrency: number;
  /** Epoch ms after which no item is begun: each left is counted `deferred`. */
  readonly deadline?: number;
  readonly clock: Pick<Clock, 'now'>;
}

/** Handles every item, and answers how many ended in each outcome (`deferred` for those the deadline left). */
export async function runBounded<T, O extends string>(
  items: readonly T[],
  handle: (item: T) => Promise<O>,
  { concurrency, deadline, clock }: BoundedRunOptions,
): Promise<(outcome: O | 'deferred') => number> {
  const outcomes: (O | 'deferred')[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      outcomes.push(deadline !== undefined && clock.now() >= deadline ? 'deferred' : await handle(item));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return (outcome) => outcomes.filter((each) => each === outcome).length;
}
