import { describe, expect, it, vi } from 'vitest';
import { ENV } from '../../../lambda/contract/environment-names.js';
import { configFromEnvironment, requestStateKeyIn } from '../../../lambda/handlers/environment.js';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:RequestStateKey-abc123';
const KEY = 'k'.repeat(64);

describe('the request-state key', () => {
  it('is read from its secret when first asked for, not when the function is configured', async () => {
    const read = vi.fn(async () => KEY);
    const reader = vi.fn(() => read);
    const key = requestStateKeyIn(ARN, reader);
    expect(reader).toHaveBeenCalledWith(ARN);
    expect(read).not.toHaveBeenCalled();
    await expect(key()).resolves.toBe(KEY);
  });

  it('refuses a key too short to sign with, naming the secret', async () => {
    const key = requestStateKeyIn(ARN, () => async () => 'short');
    await expect(key()).rejects.toThrow(`The request-state key in ${ARN} must be at least 32 bytes`);
  });

  it('is configured from the secret ARN alone, and left to a per-process key when none is named', () => {
    const env = { [ENV.tableName]: 'tasks', [ENV.toolCatalogItem]: 'catalog#declared#test' };
    expect(configFromEnvironment(env).requestStateKey).toBeUndefined();
    expect(configFromEnvironment({ ...env, [ENV.requestStateKeySecretArn]: ARN }).requestStateKey).toBeTypeOf(
      'function',
    );
  });
});
