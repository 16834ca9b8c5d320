// The names of a durable function's executions: string rules, no SDK. A durable execution's own ARN
// (`<function>:<version>/durable-execution/<name>/<id>`) is only known once it has started, and names the version an
// alias resolved to. So a task stores the execution's *reference*, `<unqualified function>/durable-execution/<name>`,
// which the server computes before the start (the task is stored first) and the workflow computes from its payload;
// the executor resolves it to the real ARN when it calls Lambda.

/** `arn:<partition>:lambda:<region>:<account>:function:<name>`, then an optional `:<qualifier>`. */
const FUNCTION_ARN = /^(arn:[^:/]+:lambda:[^:/]+:[^:/]+:function:[A-Za-z0-9_-]+)(?::([A-Za-z0-9_.$-]+))?$/;

/**
 * A function ARN (with the version a real execution ARN names), `/durable-execution/<name>`, then the execution ID a
 * real ARN ends with (Lambda's pattern for DurableExecutionArn).
 */
const DURABLE_EXECUTION_ARN =
  /^(arn:[^:/]+:lambda:[^:/]+:[^:/]+:function:[A-Za-z0-9_-]+)(:[A-Za-z0-9_.$-]+)?\/durable-execution\/([A-Za-z0-9_-]+)(\/[A-Za-z0-9_-]+)?$/;

/** A durable execution name's limits: 1-64 characters of `A-Za-z0-9_-`. */
export const DURABLE_EXECUTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether `arn` is a Lambda function's ARN, qualified or not. (Whether the function is durable only Lambda knows.) */
export function isFunctionArn(arn: string): boolean {
  return FUNCTION_ARN.test(arn);
}

/** Whether the function ARN names a version or alias (`…:function:<name>:<qualifier>`): Lambda starts only those. */
export function isQualifiedFunctionArn(arn: string): boolean {
  return FUNCTION_ARN.exec(arn)?.[2] !== undefined;
}

/** Whether `arn` is a durable execution's real ARN or its reference. */
export function isDurableExecutionArn(arn: string): boolean {
  return DURABLE_EXECUTION_ARN.test(arn);
}

/** Whether `arn` is an execution reference (no version, no execution ID), not a real execution ARN. */
export function isDurableExecutionRef(arn: string): boolean {
  const match = DURABLE_EXECUTION_ARN.exec(arn);
  return match !== null && match[2] === undefined && match[4] === undefined;
}

/** The unqualified function ARN of a function ARN (qualified or not), a durable execution ARN or a reference. */
export function unqualifiedFunctionArnOf(arn: string): string {
  const functionArn = (FUNCTION_ARN.exec(arn) ?? DURABLE_EXECUTION_ARN.exec(arn))?.[1];
  if (functionArn === undefined) throw new Error(`Not a Lambda function or durable execution ARN: ${arn}`);
  return functionArn;
}

/** The execution name of a durable execution ARN or reference. */
export function durableExecutionNameOf(arn: string): string {
  const name = DURABLE_EXECUTION_ARN.exec(arn)?.[3];
  if (name === undefined) throw new Error(`Not a durable execution ARN: ${arn}`);
  return name;
}

/** The reference of the execution `executionName` of the function (`functionArn` qualified or not). */
export function durableExecutionRefFor(functionArn: string, executionName: string): string {
  return `${unqualifiedFunctionArnOf(functionArn)}/durable-execution/${executionName}`;
}

/** The reference of a durable execution, from its real ARN; a reference is returned as it is. */
export function durableExecutionRefOf(arn: string): string {
  const match = DURABLE_EXECUTION_ARN.exec(arn);
  if (match === null) throw new Error(`Not a durable execution ARN: ${arn}`);
  return `${match[1]}/durable-execution/${match[3]}`;
}
