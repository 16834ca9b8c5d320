// Secrets Manager values read at run time, once per instance: what must never sit in a function's environment (the
// upstream client secret, the token signing key) is named there only by its ARN. The SDK loads on the first read.
import { onceLoaded } from '../core/once-loaded.js';

// Loaded on the first read: the MCP function's cold start stays free of the AWS SDK (see aws-clients.ts).
const client = onceLoaded(async () => {
  const [{ SecretsManagerClient }, { AWS_CLIENT_BOUNDS }] = await Promise.all([
    import('@aws-sdk/client-secrets-manager'),
    import('./aws-clients.js'),
  ]);
  return new SecretsManagerClient({ ...AWS_CLIENT_BOUNDS });
});

/** The current value of the secret `arn`, read when first asked for and then kept; a failed read is tried again. */
export function secretValue(arn: string): () => Promise<string> {
  return onceLoaded(async () => {
    const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const { SecretString } = await (await client()).send(new GetSecretValueCommand({ SecretId: arn }));
    if (SecretString === undefined || SecretString === '') throw new Error(`Secret ${arn} has no string value`);
    return SecretString;
  });
}
