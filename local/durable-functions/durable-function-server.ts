// The local stand-in for Lambda durable functions, inside the runner's worker (durable-function-runner.ts): a loopback
// server that speaks the Lambda REST operations the durable executor calls, as @aws-sdk/client-lambda speaks them
// (the unchanged client reaches it through AWS_ENDPOINT_URL_LAMBDA), and runs each execution's handler in this thread
// with the durable execution SDK's own local runner (`LocalDurableTestRunner`, from
// @aws/durable-execution-sdk-js-testing): the same checkpoints, replays, waits in real time and callbacks as in AWS,
// with no AWS account.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InvocationStatus,
  type DurableExecutionInvocationInput,
  type DurableLambdaHandler,
} from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner } from '@aws/durable-execution-sdk-js-testing';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../local-aws.js';

export interface LocalDurableExecution {
  readonly arn: string;
  readonly name: string;
  /** The version its executions run (an alias resolves to version 1 here: there is only one). */
  readonly functionArn: string;
  /** The Invoke payload, as JSON text, and its X-Amz-Invocation-Type. */
  readonly payload: string;
  readonly invocationType: string;
  readonly startedAt: number;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'STOPPED';
  result?: string;
  error?: { ErrorType: string; ErrorMessage: string };
  endedAt?: number;
}

export interface DurableFunctionServer {
  readonly url: string;
  close(): Promise<void>;
}

export interface DurableFunctionServerOptions {
  /** The durable handlers (`withDurableExecution(…)`), by function name. */
  readonly functions: Readonly<Record<string, DurableLambdaHandler>>;
  /** Told of a handler's execution the local runner itself could not run (not of a workflow's own failure). */
  readonly onError?: (error: unknown) => void;
}

/** A local durable function's ARN, unqualified. */
export const localFunctionArn = (name: string) => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${name}`;

/** `arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]` → the name; a bare name is its own name. */
const functionNameOf = (functionName: string): string => /:function:([^:]+)/.exec(functionName)?.[1] ?? functionName;

/** What an execution's code is told once it is stopped: the next invocation runs none of it. */
const STOPPED_OUTPUT = {
  Status: InvocationStatus.FAILED,
  Error: { ErrorType: 'DurableExecutionStopped', ErrorMessage: 'The durable execution was stopped.' },
} as const;

export async function serveDurableFunctions(options: DurableFunctionServerOptions): Promise<DurableFunctionServer> {
  const executions = new Map<string, LocalDurableExecution>();
  /** The local runner of each execution and the execution, by the ID the SDK's checkpoint server gave it. */
  const runners = new Map<string, { runner: LocalDurableTestRunner; execution: LocalDurableExecution }>();

  const byArn = (arn: string) => [...executions.values()].find((each) => each.arn === arn);
  // No skipTime: it fakes the timers of the whole process, which serves much else here. Waits take their real time.
  await LocalDurableTestRunner.setupTestEnvironment();

  function run(execution: LocalDurableExecution, handler: DurableLambdaHandler): void {
    const runner: LocalDurableTestRunner = new LocalDurableTestRunner({
      // Every invocation (the first and each replay after a wait or a callback) passes here: the first tells which
      // checkpoint-server execution is this one, so a callback ID (which names it) finds its runner; once the execution
      // is stopped, its code runs no further.
      handlerFunction: (async (event: DurableExecutionInvocationInput, context) => {
        runners.set(event.DurableExecutionArn, { runner, execution });
        if (execution.status === 'STOPPED') return STOPPED_OUTPUT;
        return handler(event, context);
      }) as DurableLambdaHandler,
    });
    runner
      .run({ payload: JSON.parse(execution.payload) as unknown })
      .then((outcome) => {
        if (execution.status !== 'RUNNING') return;
        execution.endedAt = Date.now();
        if (outcome.getStatus() === 'SUCCEEDED') {
          execution.status = 'SUCCEEDED';
          const result: unknown = outcome.getResult();
          if (result !== undefined) execution.result = JSON.stringify(result);
          return;
        }
        const { errorType, errorMessage } = outcome.getError();
        execution.status = 'FAILED';
        execution.error = { ErrorType: errorType ?? 'Error', ErrorMessage: errorMessage ?? '' };
      })
      .catch((error: unknown) => {
        options.onError?.(error);
        if (execution.status !== 'RUNNING') return;
        Object.assign(execution, {
          status: 'FAILED',
          endedAt: Date.now(),
          error: { ErrorType: 'LocalRunnerError', ErrorMessage: String(error) },
        });
      });
  }

  const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const refuse = (response: ServerResponse, status: number, type: string, message: string) =>
    json(response, status, { Type: 'User', message }, { 'x-amzn-errortype': type });
  const notFound = (response: ServerResponse, message: string) =>
    refuse(response, 404, 'ResourceNotFoundException', message);

  function invoke(request: IncomingMessage, response: ServerResponse, target: string, body: Buffer): void {
    const name = functionNameOf(target);
    const handler = options.functions[name];
    if (handler === undefined) return notFound(response, `Function not found: ${localFunctionArn(name)}`);
    const executionName = request.headers['x-amz-durable-execution-name'];
    if (typeof executionName !== 'string')
      return refuse(response, 400, 'InvalidParameterValueException', 'A durable function is invoked with a name here');
    const payload = body.toString('utf8');
    const existing = executions.get(executionName);
    if (existing !== undefined && existing.payload !== payload)
      return refuse(
        response,
        409,
        'DurableExecutionAlreadyStartedException',
        `Durable execution ${executionName} already started with another payload`,
      );
    if (existing === undefined) {
      const version = `${localFunctionArn(name)}:1`;
      const execution: LocalDurableExecution = {
        arn: `${version}/durable-execution/${executionName}/${randomUUID()}`,
        name: executionName,
        functionArn: version,
        payload,
        invocationType: String(request.headers['x-amz-invocation-type'] ?? 'RequestResponse'),
        startedAt: Date.now(),
        status: 'RUNNING',
      };
      executions.set(executionName, execution);
      run(execution, handler);
    }
    response.writeHead(202, { 'x-amz-durable-execution-arn': executions.get(executionName)!.arn });
    response.end();
  }

  function describe(response: ServerResponse, execution: LocalDurableExecution): void {
    json(response, 200, {
      DurableExecutionArn: execution.arn,
      DurableExecutionName: execution.name,
      FunctionArn: execution.functionArn,
      Status: execution.status,
      StartTimestamp: execution.startedAt / 1000,
      ...(execution.endedAt !== undefined ? { EndTimestamp: execution.endedAt / 1000 } : {}),
      ...(execution.result !== undefined ? { Result: execution.result } : {}),
      ...(execution.error !== undefined ? { Error: execution.error } : {}),
    });
  }

  function stop(response: ServerResponse, execution: LocalDurableExecution, body: Buffer): void {
    if (execution.status !== 'RUNNING')
      return refuse(response, 409, 'ResourceConflictException', `Durable execution ${execution.name} is not running`);
    const { Error: reason } = (body.length > 0 ? JSON.parse(body.toString('utf8')) : {}) as {
      Error?: { ErrorType?: string; ErrorMessage?: string };
    };
    Object.assign(execution, {
      status: 'STOPPED',
      endedAt: Date.now(),
      error: { ErrorType: reason?.ErrorType ?? 'Stopped', ErrorMessage: reason?.ErrorMessage ?? '' },
    });
    json(response, 200, { StopTimestamp: execution.endedAt! / 1000 });
  }

  /**
   * A callback ID is the checkpoint server's base64 JSON naming the execution and the operation; the operation's own
   * runner sends the answer, as a test using the SDK would.
   */
  async function answerCallback(response: ServerResponse, callbackId: string, body: Buffer, succeeded: boolean) {
    let named: { executionId?: string; operationId?: string } = {};
    try {
      named = JSON.parse(Buffer.from(callbackId, 'base64').toString('utf8')) as typeof named;
    } catch {
      // Not one of this runner's: answered below as Lambda answers an unknown callback.
    }
    const running = runners.get(named.executionId ?? '');
    if (running === undefined || named.operationId === undefined)
      return notFound(response, `No callback ${callbackId}`);
    const waiting = running.runner.getOperationById(named.operationId);
    const details = waiting.getCallbackDetails();
    if (
      running.execution.status !== 'RUNNING' ||
      details === undefined ||
      details.result !== undefined ||
      details.error !== undefined
    )
      return refuse(response, 400, 'CallbackTimeoutException', `Callback ${callbackId} is closed`);
    try {
      if (succeeded) await waiting.sendCallbackSuccess(body.length > 0 ? body.toString('utf8') : undefined);
      else {
        const { ErrorType, ErrorMessage } = JSON.parse(body.toString('utf8') || '{}') as Record<string, string>;
        await waiting.sendCallbackFailure({ ErrorType, ErrorMessage });
      }
      json(response, 200, {});
    } catch (error) {
      refuse(response, 400, 'CallbackTimeoutException', `Callback ${callbackId} is closed: ${String(error)}`);
    }
  }

  async function route(request: IncomingMessage, response: ServerResponse, body: Buffer): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://local');
    const path = url.pathname;
    const method = request.method ?? 'GET';
    let match: RegExpExecArray | null;
    if (method === 'POST' && (match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(path))) {
      return invoke(request, response, decodeURIComponent(match[1]!), body);
    }
    if (method === 'GET' && (match = /^\/2025-12-01\/functions\/([^/]+)\/durable-executions$/.exec(path))) {
      const name = functionNameOf(decodeURIComponent(match[1]!));
      const wanted = url.searchParams.get('DurableExecutionName');
      const listed = [...executions.values()].filter(
        (each) => functionNameOf(each.functionArn) === name && (wanted === null || each.name === wanted),
      );
      return json(response, 200, {
        DurableExecutions: listed.map((each) => ({
          DurableExecutionArn: each.arn,
          DurableExecutionName: each.name,
          FunctionArn: each.functionArn,
          Status: each.status,
          StartTimestamp: each.startedAt / 1000,
        })),
      });
    }
    if ((match = /^\/2025-12-01\/durable-executions\/([^/]+)(\/history|\/stop)?$/.exec(path))) {
      const arn = decodeURIComponent(match[1]!);
      const operation = match[2] ?? '';
      const execution = byArn(arn);
      if (execution === undefined) return notFound(response, `Durable execution not found: ${arn}`);
      if (operation === '' && method === 'GET') return describe(response, execution);
      // The local runner keeps its operations to itself until the end: the current step shows from progress reports.
      if (operation === '/history' && method === 'GET') return json(response, 200, { Events: [] });
      if (operation === '/stop' && method === 'POST') return stop(response, execution, body);
    }
    if (
      method === 'POST' &&
      (match = /^\/2025-12-01\/durable-execution-callbacks\/([^/]+)\/(succeed|fail)$/.exec(path))
    ) {
      return answerCallback(response, decodeURIComponent(match[1]!), body, match[2] === 'succeed');
    }
    notFound(response, `The local durable function runner does not answer ${method} ${path}`);
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      route(request, response, Buffer.concat(chunks)).catch((error: unknown) => {
        options.onError?.(error);
        if (!response.headersSent)
          json(response, 500, { message: String(error) }, { 'x-amzn-errortype': 'ServiceException' });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await LocalDurableTestRunner.teardownTestEnvironment();
    },
  };
}
