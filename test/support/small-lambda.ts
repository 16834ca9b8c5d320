// A small Lambda for unit tests of durable tools: a LambdaClient whose `send` keeps durable executions by name and
// their callbacks, answers the calls the durable executor makes as Lambda documents them, and counts each call by
// operation. Nothing runs: a test ends executions and opens callbacks by hand.
import { CallbackTimeoutException, LambdaClient, ResourceNotFoundException } from '@aws-sdk/client-lambda';

interface Execution {
  arn: string;
  status: string;
  result?: string;
}

/** A Lambda that keeps durable executions by name, and counts each API call by operation. */
export class SmallLambda {
  readonly executions = new Map<string, Execution>();
  readonly calls: Record<string, number> = {};
  /** Callback ID → what completed it (the Result's text), `null` while it waits. */
  readonly callbacks = new Map<string, string | null>();

  client(): LambdaClient {
    const client = new LambdaClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    client.send = (async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const operation = command.constructor.name.replace(/Command$/, '');
      this.calls[operation] = (this.calls[operation] ?? 0) + 1;
      return this.answer(operation, command.input);
    }) as unknown as LambdaClient['send'];
    return client;
  }

  /** Ends the execution of the task SUCCEEDED with `result`. */
  succeed(reference: string, result: unknown): Execution {
    const execution = [...this.executions.values()].find((each) => reference.endsWith(`/${nameOf(each.arn)}`))!;
    Object.assign(execution, { status: 'SUCCEEDED', result: JSON.stringify(result) });
    return execution;
  }

  /** Opens a callback (a `waitForCallback` of the workflow) and returns its ID. */
  openCallback(): string {
    const callbackId = Buffer.from(`callback-${this.callbacks.size + 1}`).toString('base64');
    this.callbacks.set(callbackId, null);
    return callbackId;
  }

  /** Closes a callback unanswered, as its timeout or the execution's end does. */
  closeCallback(callbackId: string): void {
    this.callbacks.set(callbackId, '(closed)');
  }

  private answer(operation: string, input: Record<string, unknown>): unknown {
    const byArn = (arn: unknown) => [...this.executions.values()].find((each) => each.arn === arn);
    switch (operation) {
      case 'Invoke': {
        const name = input['DurableExecutionName'] as string;
        const fn = (input['FunctionName'] as string).replace(/(:function:[^:]+):.*$/, '$1');
        const arn = `${fn}:3/durable-execution/${name}/${this.executions.size}`;
        if (!this.executions.has(name)) this.executions.set(name, { arn, status: 'RUNNING' });
        return { StatusCode: 202, DurableExecutionArn: this.executions.get(name)!.arn };
      }
      case 'ListDurableExecutionsByFunction': {
        const execution = this.executions.get(input['DurableExecutionName'] as string);
        return {
          DurableExecutions: execution
            ? [{ DurableExecutionName: nameOf(execution.arn), DurableExecutionArn: execution.arn }]
            : [],
        };
      }
      case 'GetDurableExecution': {
        const execution = byArn(input['DurableExecutionArn']);
        if (execution === undefined) throw new ResourceNotFoundException({ message: 'gone', $metadata: {} });
        return { Status: execution.status, ...(execution.result ? { Result: execution.result } : {}) };
      }
      case 'GetDurableExecutionHistory':
        return { Events: [{ EventType: 'WaitStarted', Id: 'w', Name: 'Review window' }] };
      case 'SendDurableExecutionCallbackSuccess': {
        const callbackId = input['CallbackId'] as string;
        if (this.callbacks.get(callbackId) !== null)
          throw new CallbackTimeoutException({ message: 'The callback is closed', $metadata: {} });
        this.callbacks.set(callbackId, Buffer.from(input['Result'] as Uint8Array).toString('utf8'));
        return {};
      }
      case 'StopDurableExecution':
        byArn(input['DurableExecutionArn'])!.status = 'STOPPED';
        return {};
      default:
        throw new Error(`SmallLambda does not answer ${operation}`);
    }
  }
}

const nameOf = (arn: string) => arn.split('/durable-execution/')[1]!.split('/')[0]!;
