// The ARN of a named execution, derived from its state machine's ARN: a string rule, no SDK, so that callers that
// need it before the AWS SDK loads (see lambda/handlers/loaded-on-first-call.ts) can have it.

/**
 * arn:aws:states:<region>:<account>:stateMachine:<name> →
 * arn:aws:states:<region>:<account>:execution:<name>:<executionName>
 */
export function executionArnFor(stateMachineArn: string, executionName: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${executionName}`;
}
