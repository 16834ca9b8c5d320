// Counts the AWS calls a client sends, by command (`QueryCommand`, `DescribeExecutionCommand`, ...), with an SDK
// middleware: the calls still go to the real endpoint. The bench and the tests use it to show what an operation costs.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SFNClient } from '@aws-sdk/client-sfn';

export interface AwsCallCounter {
  /** Calls sent so far, by command name; retries count again. */
  readonly calls: Readonly<Record<string, number>>;
  /** All calls sent so far to the clients whose service name is given (`dynamoDb` or `stepFunctions`). */
  total(service?: 'dynamoDb' | 'stepFunctions'): number;
  /** Forgets the counts so far. */
  reset(): void;
}

export function countAwsCalls(clients: {
  readonly dynamoDb: DynamoDBClient;
  readonly stepFunctions: SFNClient;
}): AwsCallCounter {
  const calls: Record<string, number> = {};
  const byService = { dynamoDb: 0, stepFunctions: 0 };
  for (const service of ['dynamoDb', 'stepFunctions'] as const) {
    const stack = clients[service].middlewareStack as unknown as {
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
    total: (service) => (service === undefined ? byService.dynamoDb + byService.stepFunctions : byService[service]),
    reset: () => {
      for (const name of Object.keys(calls)) delete calls[name];
      byService.dynamoDb = byService.stepFunctions = 0;
    },
  };
}
