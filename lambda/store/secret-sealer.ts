// Seals the webhook secrets a subscription stores, so the table never holds one in clear: whoever can read the table
// (a backup, an export, a console) cannot sign as the server. AES-256-GCM, authenticated, so a sealed value that was
// altered or sealed under another key is refused rather than unsealed to garbage. Each value is bound to what it
// belongs to (the associated data: for a webhook secret, its subscription), so one copied to another item is refused
// too: whoever can write the table cannot make the server sign their deliveries with another subscription's secret.
// The key comes from Secrets Manager in AWS; the local stack and tests make a random one.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SecretSealer {
  /**
   * The secret, sealed and bound to `boundTo`: safe to store. A new random IV each time, so sealing one secret twice
   * gives two values.
   */
  seal(plain: string, boundTo: string): string;
  /** The secret back; throws when `sealed` was not sealed by this key, was altered, or was bound to another thing. */
  unseal(sealed: string, boundTo: string): string;
}

/** Bound to what it belongs to; what `seal` writes. */
const BOUND = 'v2';
/**
 * Bound to nothing: what was written before values were bound. Still read, so subscriptions saved before keep working
 * until they are refreshed (written again as v2) or lapse (30 days at most, the longest grant).
 */
const UNBOUND = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `v2.<iv>.<tag>.<ciphertext>`, each part base64url; `v1.…` (no associated data) is read too. */
export class AesGcmSecretSealer implements SecretSealer {
  private readonly key: Buffer;

  /** `key`: 32 bytes (AES-256). */
  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new RangeError(`A sealing key has ${KEY_BYTES} bytes, not ${key.length}`);
    this.key = Buffer.from(key);
  }

  seal(plain: string, boundTo: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [BOUND, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  unseal(sealed: string, boundTo: string): string {
    const parts = sealed.split('.');
    const version = parts[0];
    if (parts.length !== 4 || (version !== BOUND && version !== UNBOUND))
      throw new Error(`Cannot unseal: not a sealed secret (expected ${BOUND}.<iv>.<tag>.<ciphertext>)`);
    const [iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
    if (iv!.length !== IV_BYTES || tag!.length !== TAG_BYTES)
      throw new Error('Cannot unseal: the sealed secret is malformed (wrong IV or tag length)');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv!, { authTagLength: TAG_BYTES });
      if (version === BOUND) decipher.setAAD(Buffer.from(boundTo, 'utf8'));
      decipher.setAuthTag(tag!);
      return Buffer.concat([decipher.update(ciphertext!), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new Error('Cannot unseal: the sealed secret was altered, sealed under another key or for another item', {
        cause: error,
      });
    }
  }
}

/** A fresh random sealing key, for the local stack and tests (AWS keeps its key in Secrets Manager). */
export function randomSealingKey(): Buffer {
  return randomBytes(KEY_BYTES);
}
