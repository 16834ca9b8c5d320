// A secret sealed the way the store wrote them before sealed values were bound to their subscription (`v1`, AES-GCM
// with no associated data): the form still read while stored subscriptions move to the bound one.
import { createCipheriv, randomBytes } from 'node:crypto';

export function sealedUnbound(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
}
