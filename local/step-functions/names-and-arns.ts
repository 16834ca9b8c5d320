// Name rules, ARN construction and ARN syntax checks for state machines and executions.
import { SfnApiError } from './api-error.js';

export interface AccountScope {
  readonly region: string;
  readonly accountId: string;
}

// AWS also forbids whitespace, brackets, wildcards and control characters; the emulator keeps to the
// strictest documented set (the one required for CloudWatch logging) so nothing passes here that AWS rejects.
const NAME_PATTERN = /^[0-9A-Za-z_-]{1,80}$/;

export function validateName(name: string): void {
  if (!NAME_PATTERN.test(name)) throw new SfnApiError('InvalidName', `Invalid Name: '${name}'`);
}

export function stateMachineArn(scope: AccountScope, name: string): string {
  return `arn:aws:states:${scope.region}:${scope.accountId}:stateMachine:${name}`;
}

export function executionArn(scope: AccountScope, stateMachineName: string, executionName: string): string {
  return `arn:aws:states:${scope.region}:${scope.accountId}:execution:${stateMachineName}:${executionName}`;
}

/**
 * An EXPRESS execution's ARN: `express` in place of `execution`, and an ID after the name, as EXPRESS names need not be
 * unique.
 */
export function expressExecutionArn(
  scope: AccountScope,
  stateMachineName: string,
  executionName: string,
  id: string,
): string {
  return `arn:aws:states:${scope.region}:${scope.accountId}:express:${stateMachineName}:${executionName}:${id}`;
}

// Syntax only: a well-formed ARN for another region/account or a version/alias qualifier is "does not exist",
// not "invalid", which is how AWS distinguishes the two.
const STATE_MACHINE_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[^:\s]+(:[^:\s]+)?$/;
const EXECUTION_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:(execution|express):[^:\s]+(:[^:\s]+){1,2}$/;

export function assertStateMachineArn(arn: string): void {
  if (!STATE_MACHINE_ARN.test(arn)) throw new SfnApiError('InvalidArn', `Invalid Arn: '${arn}'`);
}

export function assertExecutionArn(arn: string): void {
  if (!EXECUTION_ARN.test(arn)) throw new SfnApiError('InvalidArn', `Invalid Arn: '${arn}'`);
}

/**
 * DescribeExecution, StopExecution and GetExecutionHistory serve STANDARD executions only; AWS answers an EXPRESS
 * execution's ARN as one of the wrong resource type, whether or not the execution exists.
 */
export function assertNotExpressExecutionArn(arn: string): void {
  if (arn.split(':')[5] === 'express')
    throw new SfnApiError('InvalidArn', "Invalid Arn: 'Resource type not valid in this context: express'");
}

/** AWS JSON 1.0 timestamps are epoch seconds (fractional) numbers, which is what the SDK deserialises. */
export function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}
