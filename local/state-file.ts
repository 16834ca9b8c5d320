// A stand-in's state as a JSON file, for the local stack's opt-in to keep state across restarts (LOCAL_STATE_DIR,
// docs/local-stack.md). Writes are coalesced (one write for a burst of changes) and atomic (a temporary file renamed
// over the old one), so a stack killed mid-write leaves the previous state, never half a file.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface StateFile<T> {
  readonly path: string;
  /** What was saved last, or `undefined` when nothing was. */
  load(): T | undefined;
  /** Saves what `snapshot` answers, soon: changes made in the same turn of the event loop share one write. */
  changed(): void;
  /** Writes a pending change now (on close). */
  flush(): void;
}

export function jsonStateFile<T>(path: string, snapshot: () => T): StateFile<T> {
  let pending: NodeJS.Immediate | undefined;
  const write = (): void => {
    pending = undefined;
    mkdirSync(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(snapshot(), null, 2));
    renameSync(temporary, path);
  };
  return {
    path,
    load: () => {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      try {
        return JSON.parse(text) as T;
      } catch (error) {
        throw new Error(`${path} is not the JSON the local stack saved; move it away to start afresh`, {
          cause: error,
        });
      }
    },
    changed: () => {
      pending ??= setImmediate(write);
    },
    flush: () => {
      if (pending === undefined) return;
      clearImmediate(pending);
      write();
    },
  };
}
