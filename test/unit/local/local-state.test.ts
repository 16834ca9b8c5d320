// The webhook sealing key the local stack keeps with LOCAL_STATE_DIR: made once, readable by its owner only, the same
// key at every start after, and a file that holds no whole key refused with its path named.
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keptKey } from '../../../local/local-state.js';

const newKey = () => randomBytes(32);

describe('keptKey', () => {
  it('makes the key the first time, owner-readable only, and answers the same key every time after', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kept-key-'));
    const path = join(dir, 'webhook-sealing-key');
    const made = keptKey(path, newKey);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(keptKey(path, newKey)).toEqual(made);
    expect(readdirSync(dir)).toEqual(['webhook-sealing-key']);
  });

  it('refuses a file that holds no whole key, naming it, rather than sealing with a short key', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'kept-key-')), 'webhook-sealing-key');
    writeFileSync(path, '');
    expect(() => keptKey(path, newKey)).toThrow(`${path} holds 0 bytes of key, not 32`);
  });
});
