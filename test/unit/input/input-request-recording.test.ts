// The ask step's own checks of a named key: refused before anything is written, so a state machine with a
// bad key fails its Task state at once instead of waiting for an answer nobody can give.
import { describe, expect, it } from 'vitest';
import { AskStepError, createAskStep } from '../../../lambda/input/input-request-recording.js';
import type { InputRequestStore } from '../../../lambda/store/input-request-store.js';

/** A store the refused asks must never reach. */
const untouched: InputRequestStore = new Proxy({} as InputRequestStore, {
  get: () => () => {
    throw new Error('the store was reached');
  },
});

const ask = (key: unknown) =>
  createAskStep({ inputs: untouched })({
    taskToken: 'token',
    executionArn: 'arn:aws:states:eu-west-1:123456789012:execution:m:task-' + 'a'.repeat(64) + '-0123456789',
    request: { method: 'roots/list', params: {} },
    key: key as string,
  });

describe('ask step keys', () => {
  it.each(['', 'has space', 'x'.repeat(65), 'slash/key', 42])('refuses the key %j', async (key) => {
    await expect(ask(key)).rejects.toThrow(AskStepError);
    await expect(ask(key)).rejects.toThrow(/key must be 1-64/);
  });
});
