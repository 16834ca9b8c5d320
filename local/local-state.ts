// The local stack's opt-in to keep its state across restarts: LOCAL_STATE_DIR names a directory, and each stand-in
// keeps what it holds in a place of its own there (docs/local-stack.md). Unset, everything is in memory.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const STATE_DIR_VARIABLE = 'LOCAL_STATE_DIR';

/** Where each stand-in keeps its state, under the directory. */
export interface LocalStatePaths {
  /** DynamoDB Local's database directory (tasks, events, catalog items, OAuth records). */
  readonly dynamoDb: string;
  /** The Step Functions emulator's machines and executions. */
  readonly stepFunctions: string;
  /** The Schema Registry stand-in's registries and schemas. */
  readonly schemaRegistry: string;
  /** The key webhook subscriptions' secrets are sealed with, so kept subscriptions can still be delivered to. */
  readonly webhookSealingKey: string;
  /** Where the task-event stream reader stopped, so a restart does not project and deliver old changes again. */
  readonly taskEventStream: string;
}

/** The directory `env` names, made absolute; `undefined` when the variable is unset or empty. */
export function stateDirFrom(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const dir = env[STATE_DIR_VARIABLE]?.trim();
  return dir ? resolve(dir) : undefined;
}

export function localStatePaths(dir: string): LocalStatePaths {
  return {
    dynamoDb: join(dir, 'dynamodb'),
    stepFunctions: join(dir, 'step-functions.json'),
    schemaRegistry: join(dir, 'schema-registry.json'),
    webhookSealingKey: join(dir, 'webhook-sealing-key'),
    taskEventStream: join(dir, 'task-event-stream.json'),
  };
}

/**
 * The key kept at `path`, made (from `create`) and written there, readable by its owner only, the first time. Written
 * to a temporary file and renamed, so a stack killed mid-write leaves no half key; a file that is not a key of the
 * length `create` makes is refused with its path named.
 */
export function keptKey(path: string, create: () => Buffer): Buffer {
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text !== undefined) {
    const kept = Buffer.from(text.trim(), 'base64');
    const expected = create().length;
    if (kept.length !== expected)
      throw new Error(
        `${path} holds ${kept.length} bytes of key, not ${expected}; the kept webhook subscriptions need their key: ` +
          'delete the state directory to start afresh',
      );
    return kept;
  }
  const key = create();
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, key.toString('base64'), { mode: 0o600 });
  renameSync(temporary, path);
  return key;
}
