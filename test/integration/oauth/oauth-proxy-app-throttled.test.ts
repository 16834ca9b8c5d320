// The OAuth proxy when its table throttles (injected through the SDK middleware, as a throttle left after the SDK's
// retries arrives): a definite 503 temporarily_unavailable with when to try again, never a 500, and the proxy serves
// again as soon as the table does.
import { afterEach, describe, expect, it } from 'vitest';
import { throttleWhen } from '../../support/injected-throttle.js';
import { localAwsClients } from '../../support/local-backend.js';
import { register, registeredClientId, useOAuthProxyServer } from '../../support/oauth-proxy-flow.js';

let throttling = false;
const clients = localAwsClients();
throttleWhen(clients.dynamoDb, 'dynamoDb', () => throttling);
useOAuthProxyServer({ clients });
afterEach(() => {
  throttling = false;
});

describe('the OAuth proxy on a throttled table', () => {
  it('answers a registration 503 temporarily_unavailable with Retry-After, and registers once the table serves', async () => {
    throttling = true;
    const refused = await register();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({
      error: 'temporarily_unavailable',
      error_description: 'The authorization server is busy: try again in 1 s',
    });
    throttling = false;
    await expect(registeredClientId()).resolves.toEqual(expect.any(String));
  });
});
