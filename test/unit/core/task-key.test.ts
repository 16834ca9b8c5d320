import { describe, expect, it } from 'vitest';
import {
  compactExecutionNameFor,
  executionNameFor,
  executionNameOf,
  newExecutionNonce,
  taskKey,
  taskKeyFromExecutionName,
} from '../../../lambda/core/task-key.js';

describe('task key', () => {
  it('is deterministic per owner and task ID', () => {
    expect(taskKey('alice', 't1')).toBe(taskKey('alice', 't1'));
  });

  it('differs between owners for the same task ID', () => {
    expect(taskKey('alice', 't1')).not.toBe(taskKey('bob', 't1'));
  });

  it('cannot be forged by moving characters between owner and task ID', () => {
    expect(taskKey('ab', 'c')).not.toBe(taskKey('a', 'bc'));
  });

  it('gives an execution name Step Functions accepts and that leads back to the key', () => {
    const key = taskKey('alice', 't1');
    const name = executionNameFor(key, newExecutionNonce());
    expect(name).toMatch(/^[0-9A-Za-z_-]{1,80}$/);
    expect(taskKeyFromExecutionName(name)).toBe(key);
  });

  it('gives each creation of the same task ID its own execution name', () => {
    const key = taskKey('alice', 't1');
    expect(executionNameFor(key, newExecutionNonce())).not.toBe(executionNameFor(key, newExecutionNonce()));
  });

  it('reads the execution name off an execution ARN', () => {
    expect(executionNameOf('arn:aws:states:us-east-1:000000000000:execution:machine:task-abc')).toBe('task-abc');
  });

  it('recognises no key in a foreign execution name', () => {
    expect(taskKeyFromExecutionName('manual-run-1')).toBeNull();
  });

  it('gives a compact execution name a durable execution accepts and that leads back to the key', () => {
    for (const owner of ['alice', 'bob', 'carol', 'dave']) {
      const key = taskKey(owner, 't1');
      const name = compactExecutionNameFor(key, newExecutionNonce());
      expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(name.startsWith('task-')).toBe(true);
      expect(taskKeyFromExecutionName(name)).toBe(key);
    }
  });

  it('recognises no key in a compact name whose last key character carries padding bits', () => {
    const name = compactExecutionNameFor(taskKey('alice', 't1'), '0123456789');
    const key = name.slice('task-'.length, 'task-'.length + 43);
    // The next character of the alphabet decodes to the same bytes, its padding bits set: a second spelling of the key.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = alphabet[alphabet.indexOf(key.at(-1)!) + 1]!;
    expect(Buffer.from(key.slice(0, 42) + respelled, 'base64url')).toEqual(Buffer.from(key, 'base64url'));
    expect(taskKeyFromExecutionName(`task-${key.slice(0, 42)}${respelled}-0123456789`)).toBeNull();
  });

  it("reads the execution name off a durable execution's reference and its real ARN", () => {
    const fn = 'arn:aws:lambda:us-east-1:000000000000:function:review';
    expect(executionNameOf(`${fn}/durable-execution/task-abc`)).toBe('task-abc');
    expect(executionNameOf(`${fn}:3/durable-execution/task-abc/8f2e0c1d`)).toBe('task-abc');
  });
});
