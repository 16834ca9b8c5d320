import { describe, expect, it } from 'vitest';
import {
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
});
