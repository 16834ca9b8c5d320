// A durable function tool's function as synth can tell it: the version or alias the MCP function invokes, the function
// its executions belong to, and, when it is made in this app, the function itself (whose configuration synth reads).
import { Arn, ArnFormat, Token } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { DurableFunctionRef } from '../props/mcp-task-endpoint-props.js';

/** A Lambda function ARN: partition, region, account, name and, when qualified, the version or alias. */
export const FUNCTION_ARN =
  /^(arn:aws[a-z-]*:lambda:([a-z0-9-]+):(\d{12}):function:([A-Za-z0-9_-]{1,64}))(?::([A-Za-z0-9_$.-]{1,128}))?$/;

export interface DurableFunctionTarget {
  /** The version's or alias's ARN: what the MCP function invokes. */
  readonly qualifiedArn: string;
  /** The function's ARN without qualifier: its executions' ARNs start with it, `:`, and the version. */
  readonly unqualifiedArn: string;
  /** The function when it is made in this app: its configuration can be read. */
  readonly appFunction?: lambda.Function;
}

/** Whether a version or an alias was given, not a bare function: only those carry a qualifier. */
export function isQualifiedFunction(value: unknown): value is lambda.IVersion | lambda.IAlias {
  return typeof value === 'object' && value !== null && 'version' in value;
}

/** The function under a version or alias (or a bare function, refused, whose configuration is still checked). */
export function underlyingFunction(value: unknown): lambda.IFunction | undefined {
  if (isQualifiedFunction(value)) return 'aliasName' in value ? value.version.lambda : value.lambda;
  return typeof value === 'object' && value !== null && 'functionArn' in value
    ? (value as lambda.IFunction)
    : undefined;
}

/**
 * The parts of a durable function given as a version, an alias or a qualified ARN; undefined for anything unqualified
 * (refused by the tool checks) or an ARN that is no function's.
 */
export function durableFunctionTarget(value: DurableFunctionRef | undefined): DurableFunctionTarget | undefined {
  if (typeof value === 'string') return qualifiedArnTarget(value);
  if (!isQualifiedFunction(value)) return undefined;
  const underlying = underlyingFunction(value)!;
  return {
    qualifiedArn: value.functionArn,
    unqualifiedArn: underlying.functionArn,
    ...(underlying instanceof lambda.Function ? { appFunction: underlying } : {}),
  };
}

function qualifiedArnTarget(arn: string): DurableFunctionTarget | undefined {
  if (Token.isUnresolved(arn)) {
    // Known only at deploy time: CloudFormation splits it, the name the resource name.
    const parts = Arn.split(arn, ArnFormat.COLON_RESOURCE_NAME);
    return { qualifiedArn: arn, unqualifiedArn: Arn.format({ ...parts, arnFormat: ArnFormat.COLON_RESOURCE_NAME }) };
  }
  const match = FUNCTION_ARN.exec(arn);
  if (match?.[5] === undefined) return undefined;
  return { qualifiedArn: arn, unqualifiedArn: match[1]! };
}
