// A throttle injected into a real AWS client through its middleware, at the initialize step: outside the SDK's retries,
// so the call fails as one does once they are spent, and inside any translation a composition root installs (which
// sits at the same step with a higher priority), so that translation sees it as it would a real one.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SFNClient } from '@aws-sdk/client-sfn';

/** A call as the middleware sees it: its command's name (`GetItemCommand`) and its input. */
export interface InjectableCall {
  readonly command: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** The error name each service throttles with. */
const THROTTLE_NAMES = { dynamoDb: 'ProvisionedThroughputExceededException', stepFunctions: 'ThrottlingException' };

/** Makes `client` (a DynamoDB or Step Functions one) answer every call `when` picks with that service's throttle. */
export function throttleWhen(
  client: DynamoDBClient | SFNClient,
  service: keyof typeof THROTTLE_NAMES,
  when: (call: InjectableCall) => boolean,
): void {
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => async (args) => {
      const call = { command: context.commandName ?? '', input: args.input as Record<string, unknown> };
      if (!when(call)) return next(args);
      throw Object.assign(new Error('Rate exceeded'), {
        name: THROTTLE_NAMES[service],
        $metadata: { httpStatusCode: 400 },
      });
    },
    { step: 'initialize', name: 'injectedThrottle' },
  );
}
