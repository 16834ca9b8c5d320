// Lambda's 4 KB environment limit, checked at synth while some values are still CloudFormation tokens.
import { Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';

/** Lambda refuses a function whose environment variables (names and values) exceed 4 KB in total. */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4096;
/** The longest value a token may resolve to, unless the caller knows better (a DynamoDB table name is at most 255). */
export const MAX_TOKEN_BYTES = 256;
/** `arn:aws-us-gov:states:ap-southeast-5:123456789012:stateMachine:` (63) plus an 80-character name, rounded up. */
export const MAX_STATE_MACHINE_ARN_BYTES = 150;
/** A token within the stage URL: the REST API ID (10 characters), a region or a URL suffix (`amazonaws.com.cn`). */
export const MAX_STAGE_URL_PART_BYTES = 32;
/** An SQS queue URL: `https://sqs.<region>.amazonaws.com.cn/<account>/` (57 at most) plus an 80-character name. */
export const MAX_QUEUE_URL_BYTES = 140;
/** A Cognito user pool ID (`<region>_<id>`): at most 55 characters. */
export const MAX_USER_POOL_ID_BYTES = 55;
/** A Cognito app client ID: at most 128 characters. */
export const MAX_USER_POOL_CLIENT_ID_BYTES = 128;

function measure(value: unknown): { literal: number; tokens: number } {
  if (typeof value === 'string') return { literal: Buffer.byteLength(value, 'utf8'), tokens: 0 };
  if (typeof value === 'object' && value !== null && 'Fn::Join' in value) {
    const [delimiter, items] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
    const parts = items.map(measure);
    return {
      literal:
        parts.reduce((sum, part) => sum + part.literal, 0) +
        Buffer.byteLength(delimiter, 'utf8') * Math.max(0, items.length - 1),
      tokens: parts.reduce((sum, part) => sum + part.tokens, 0),
    };
  }
  // A Ref, Fn::GetAtt, Fn::ImportValue, ...: known only at deploy time.
  return { literal: 0, tokens: 1 };
}

/**
 * An upper bound of the function's environment size: exact for literal text, each unresolved value counted at
 * `tokenBytes(name)` bytes (default {@link MAX_TOKEN_BYTES}).
 */
export function environmentBytesUpperBound(
  fn: lambda.Function,
  tokenBytes: (name: string) => number = () => MAX_TOKEN_BYTES,
): number {
  const cfn = fn.node.defaultChild as lambda.CfnFunction;
  // The L1 property, resolved but not yet rendered to CloudFormation's casing.
  const resolved = Stack.of(fn).resolve(cfn.environment) as { variables?: Record<string, unknown> } | undefined;
  let bytes = 0;
  for (const [name, value] of Object.entries(resolved?.variables ?? {})) {
    const { literal, tokens } = measure(value);
    bytes += Buffer.byteLength(name, 'utf8') + literal + tokens * tokenBytes(name);
  }
  return bytes;
}
