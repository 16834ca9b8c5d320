// The HMAC key that signs plain calls' `requestState` (SEP-2322): every instance of the MCP function must
// hold the same key, so a retry that reaches another instance verifies. Secrets Manager generates it at deployment.
import { Validations, type RemovalPolicy } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

/** 64 characters of letters and digits: about 380 bits, over the codec's 32-byte minimum. */
const KEY_LENGTH = 64;

export function createRequestStateKeySecret(
  scope: Construct,
  id: string,
  removalPolicy: RemovalPolicy,
): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, id, {
    description: "Signs the requestState of MCP tool calls waiting on their client's answers (SEP-2322)",
    generateSecretString: { passwordLength: KEY_LENGTH, excludePunctuation: true, includeSpace: false },
    removalPolicy,
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'Rotating the key only invalidates requestStates in flight (their clients call again); it is rotated by ' +
      'putting a new value: each instance reads it once, at its first use, so new instances take the new key.',
  });
  return secret;
}
