// TaskExecutor over AWS Step Functions (Standard state machines).
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  InvalidArn,
  InvalidExecutionInput,
  InvalidName,
  StartExecutionCommand,
  StateMachineDoesNotExist,
  StopExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { ExecutionStartError } from '../core/errors.js';
import type { ExecutionSnapshot, ExecutionStatus } from '../core/execution-status.js';
import type { StartRequest, TaskExecutor } from './task-executor.js';

export interface StepFunctionsExecutorOptions {
  readonly client: SFNClient;
}

export class StepFunctionsExecutor implements TaskExecutor {
  private readonly client: SFNClient;

  constructor(options: StepFunctionsExecutorOptions) {
    this.client = options.client;
  }

  executionArnFor(stateMachineArn: string, executionName: string): string {
    // arn:aws:states:<region>:<account>:stateMachine:<name> -> arn:aws:states:<region>:<account>:execution:<name>:<executionName>
    return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${executionName}`;
  }

  async start(request: StartRequest): Promise<{ executionArn: string }> {
    try {
      const { executionArn } = await this.client.send(
        new StartExecutionCommand({ stateMachineArn: request.stateMachineArn, name: request.executionName, input: request.input }),
      );
      return { executionArn: executionArn! };
    } catch (error) {
      // The name is taken: this task's execution already started (an earlier attempt whose answer was lost).
      if (error instanceof ExecutionAlreadyExists) return { executionArn: this.executionArnFor(request.stateMachineArn, request.executionName) };
      if (error instanceof InvalidExecutionInput) throw new ExecutionStartError(`Step Functions refused the tool input: ${error.message}`, 'input', { cause: error });
      if (error instanceof StateMachineDoesNotExist || error instanceof InvalidName || error instanceof InvalidArn) {
        throw new ExecutionStartError(`Step Functions refused to start the execution: ${error.message}`, 'configuration', { cause: error });
      }
      throw error;
    }
  }

  async describe(executionArn: string): Promise<ExecutionSnapshot | null> {
    try {
      const execution = await this.client.send(new DescribeExecutionCommand({ executionArn }));
      return {
        status: execution.status as ExecutionStatus,
        ...(execution.output !== undefined ? { output: execution.output } : {}),
        ...(execution.error !== undefined ? { error: execution.error } : {}),
        ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
      };
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return null;
      throw error;
    }
  }

  async stop(executionArn: string, reason: { error: string; cause: string }): Promise<void> {
    try {
      await this.client.send(new StopExecutionCommand({ executionArn, error: reason.error, cause: reason.cause }));
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return;
      throw error;
    }
  }
}
