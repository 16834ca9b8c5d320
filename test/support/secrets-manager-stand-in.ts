// A Secrets Manager stand-in on loopback that answers GetSecretValue (AWS JSON 1.1) for a fixed set of secrets, so the
// Lambda handlers read their secrets through the unchanged AWS SDK (AWS_ENDPOINT_URL_SECRETS_MANAGER) in tests.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SecretsManagerStandIn {
  readonly endpoint: string;
  /** How many GetSecretValue calls each secret ID got: a handler should read each secret once per instance. */
  readonly reads: Map<string, number>;
  close(): Promise<void>;
}

export async function startSecretsManagerStandIn(secrets: Record<string, string>): Promise<SecretsManagerStandIn> {
  const reads = new Map<string, number>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const target = request.headers['x-amz-target'];
      const { SecretId } = JSON.parse(body || '{}') as { SecretId?: string };
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      if (target !== 'secretsmanager.GetSecretValue' || SecretId === undefined || !(SecretId in secrets)) {
        response.statusCode = 400;
        response.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: `No secret ${SecretId}` }));
        return;
      }
      reads.set(SecretId, (reads.get(SecretId) ?? 0) + 1);
      response.end(JSON.stringify({ ARN: SecretId, Name: SecretId, SecretString: secrets[SecretId], VersionId: 'v1' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    reads,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
