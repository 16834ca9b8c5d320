// The refresher's StateMachineSource on Step Functions' control plane: ListStateMachines (every page),
// ListTagsForResource and DescribeStateMachine, through the SDK's own paginator.
import {
  DescribeStateMachineCommand,
  ListTagsForResourceCommand,
  paginateListStateMachines,
  StateMachineDoesNotExist,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import type { StateMachineSource } from './catalog-refresher.js';

export class StepFunctionsMachineSource implements StateMachineSource {
  constructor(private readonly client: SFNClient) {}

  async list(): Promise<Array<{ name: string; arn: string; type: 'STANDARD' | 'EXPRESS' }>> {
    const machines = [];
    for await (const page of paginateListStateMachines({ client: this.client, pageSize: 1000 }, {}))
      for (const machine of page.stateMachines ?? [])
        machines.push({ name: machine.name!, arn: machine.stateMachineArn!, type: machine.type! });
    return machines;
  }

  async tags(arn: string): Promise<Record<string, string>> {
    const { tags = [] } = await this.client.send(new ListTagsForResourceCommand({ resourceArn: arn }));
    return Object.fromEntries(tags.map(({ key, value }) => [key!, value ?? '']));
  }

  async definition(arn: string): Promise<string | undefined> {
    try {
      return (await this.client.send(new DescribeStateMachineCommand({ stateMachineArn: arn }))).definition;
    } catch (error) {
      if (error instanceof StateMachineDoesNotExist) return undefined;
      throw error;
    }
  }
}
