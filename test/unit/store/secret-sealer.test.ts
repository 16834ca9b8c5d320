// The sealer of webhook secrets at rest: what opens (the same key, bound to the same subscription, or sealed before
// values were bound), and what is refused (another key, an altered value, a value bound to another subscription).
import { describe, expect, it } from 'vitest';
import { AesGcmSecretSealer, randomSealingKey } from '../../../lambda/store/secret-sealer.js';
import { newWebhookSecret } from '../../contract/webhook-subscription-store-contract.js';
import { sealedUnbound } from '../../support/unbound-sealed-secret.js';

const SUBSCRIPTION = 'alice\nsub_0123456789abcdef0123456789abcdef';
const OTHER_SUBSCRIPTION = 'alice\nsub_fedcba9876543210fedcba9876543210';

describe('AesGcmSecretSealer', () => {
  const key = randomSealingKey();
  const sealer = new AesGcmSecretSealer(key);
  const secret = newWebhookSecret();

  it('opens what it sealed for the same subscription, and seals anew each time', () => {
    const sealed = sealer.seal(secret, SUBSCRIPTION);
    expect(sealed).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(secret.slice('whsec_'.length));
    expect(sealer.unseal(sealed, SUBSCRIPTION)).toBe(secret);
    expect(sealer.seal(secret, SUBSCRIPTION)).not.toBe(sealed);
  });

  it('refuses a sealed secret copied to another subscription', () => {
    const sealed = sealer.seal(secret, SUBSCRIPTION);
    expect(() => sealer.unseal(sealed, OTHER_SUBSCRIPTION)).toThrow(/Cannot unseal/);
  });

  it('refuses a sealed secret relabelled as the unbound form', () => {
    const sealed = sealer.seal(secret, SUBSCRIPTION);
    expect(() => sealer.unseal(sealed.replace(/^v2\./, 'v1.'), OTHER_SUBSCRIPTION)).toThrow(/Cannot unseal/);
  });

  it('refuses a value sealed under another key, or altered', () => {
    const foreign = new AesGcmSecretSealer(randomSealingKey()).seal(secret, SUBSCRIPTION);
    expect(() => sealer.unseal(foreign, SUBSCRIPTION)).toThrow(/Cannot unseal/);
    const [version, iv, tag, ciphertext] = sealer.seal(secret, SUBSCRIPTION).split('.');
    const flipped = Buffer.from(ciphertext!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => sealer.unseal([version, iv, tag, flipped.toString('base64url')].join('.'), SUBSCRIPTION)).toThrow(
      /Cannot unseal/,
    );
    expect(() => sealer.unseal('v3.a.b.c', SUBSCRIPTION)).toThrow(/not a sealed secret/);
  });

  it('still opens a secret sealed before values were bound, whatever it is read for', () => {
    const unbound = sealedUnbound(key, secret);
    expect(sealer.unseal(unbound, SUBSCRIPTION)).toBe(secret);
    expect(sealer.unseal(unbound, OTHER_SUBSCRIPTION)).toBe(secret);
  });
});
