// A loopback stand-in for the few Lambda REST operations the durable executor calls (Invoke, GetDurableExecution,
// ListDurableExecutionsByFunction), spoken as @aws-sdk/client-lambda speaks them, so the unchanged client reaches it
// through AWS_ENDPOINT_URL_LAMBDA. Executions are kept by name; a test ends them by hand. Counts each operation.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubExecution {
  readonly arn: string;
  readonly name: string;
  readonly functionArn: string;
  /** The Invoke payload, as JSON text, and its X-Amz-Invocation-Type. */
  readonly payload: string;
  readonly invocationType: string;
  status: string;
  result?: string;
  error?: { ErrorType: string; ErrorMessage: string };
}

export interface DurableLambdaStub {
  readonly url: string;
  readonly calls: Record<string, number>;
  /** Executions by name. */
  readonly executions: Map<string, StubExecution>;
  close(): Promise<void>;
}

const unqualified = (functionArn: string) => functionArn.replace(/(:function:[^:]+):.*$/, '$1');

export async function startDurableLambdaStub(): Promise<DurableLambdaStub> {
  const calls: Record<string, number> = {};
  const executions = new Map<string, StubExecution>();
  const count = (operation: string) => (calls[operation] = (calls[operation] ?? 0) + 1);

  const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const notFound = (response: ServerResponse, message: string) =>
    json(response, 404, { Type: 'User', message }, { 'x-amzn-errortype': 'ResourceNotFoundException' });

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://stub');
      const invoke = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(url.pathname);
      if (request.method === 'POST' && invoke) {
        count('Invoke');
        const functionArn = decodeURIComponent(invoke[1]!);
        const name = String(request.headers['x-amz-durable-execution-name']);
        const existing = executions.get(name);
        const execution = existing ?? {
          arn: `${unqualified(functionArn)}:1/durable-execution/${name}/${randomUUID()}`,
          name,
          functionArn: `${unqualified(functionArn)}:1`,
          payload: Buffer.concat(chunks).toString('utf8'),
          invocationType: String(request.headers['x-amz-invocation-type']),
          status: 'RUNNING',
        };
        executions.set(name, execution);
        response.writeHead(202, { 'x-amz-durable-execution-arn': execution.arn });
        response.end();
        return;
      }
      const list = /^\/2025-12-01\/functions\/([^/]+)\/durable-executions$/.exec(url.pathname);
      if (request.method === 'GET' && list) {
        count('ListDurableExecutionsByFunction');
        const execution = executions.get(url.searchParams.get('DurableExecutionName') ?? '');
        json(response, 200, {
          DurableExecutions: execution
            ? [{ DurableExecutionArn: execution.arn, DurableExecutionName: execution.name, Status: execution.status }]
            : [],
        });
        return;
      }
      const get = /^\/2025-12-01\/durable-executions\/([^/]+)$/.exec(url.pathname);
      if (request.method === 'GET' && get) {
        count('GetDurableExecution');
        const arn = decodeURIComponent(get[1]!);
        const execution = [...executions.values()].find((each) => each.arn === arn);
        if (execution === undefined) return notFound(response, `No durable execution ${arn}`);
        json(response, 200, {
          DurableExecutionArn: execution.arn,
          DurableExecutionName: execution.name,
          FunctionArn: execution.functionArn,
          Status: execution.status,
          StartTimestamp: Math.floor(Date.now() / 1000),
          ...(execution.result !== undefined ? { Result: execution.result } : {}),
          ...(execution.error !== undefined ? { Error: execution.error } : {}),
        });
        return;
      }
      count(`unknown ${request.method} ${url.pathname}`);
      notFound(response, `The stub does not answer ${request.method} ${url.pathname}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    executions,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
