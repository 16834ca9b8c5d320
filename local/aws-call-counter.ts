// Counts the AWS calls a client sends, by command (`QueryCommand`, `DescribeExecutionCommand`, ...), with an SDK
// middleware: the calls still go to the real endpoint. The bench and the tests use it to show what an operation costs.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SFNClient } from '@aws-sdk/client-sfn';

const SERVICES = ['dynamoDb', 'stepFunctions', 'lambda'] as const;
type Service = (typeof SERVICES)[number];

export interface AwsCallCounter {
  /** Calls sent so far, by command name; retries count again. */
  readonly calls: Readonly<Record<string, number>>;
  /** All calls sent so far to the clients whose service name is given (`dynamoDb`, `stepFunctions` or `lambda`). */
  total(service?: Service): number;
  /** Forgets the counts so far. */
  reset(): void;
}

/** Counts the calls of each client given: Lambda's too when there is one (durable functions). */
export function countAwsCalls(clients: {
  readonly dynamoDb: DynamoDBClient;
  readonly stepFunctions: SFNClient;
  readonly lambda?: LambdaClient | undefined;
}): AwsCallCounter {
  const calls: Record<string, number> = {};
  const byService: Record<Service, number> = { dynamoDb: 0, stepFunctions: 0, lambda: 0 };
  for (const service of SERVICES) {
    const client = clients[service];
    if (client === undefined) continue;
    const stack = client.middlewareStack as unknown as {
      add(middleware: unknown, options: { step: 'initialize'; name: string }): void;
    };
    stack.add(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => (args: unknown) => {
        const name = context.commandName ?? 'unknown';
        calls[name] = (calls[name] ?? 0) + 1;
        byService[service]++;
        return next(args);
      },
      { step: 'initialize', name: 'countAwsCalls' },
    );
  }
  return {
    calls,
    total: (service) =>
      service === undefined ? SERVICES.reduce((sum, each) => sum + byService[each], 0) : byService[service],
    reset: () => {
      for (const name of Object.keys(calls)) delete calls[name];
      for (const service of SERVICES) byService[service] = 0;
    },
  };
}
