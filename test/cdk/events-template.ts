// Helpers of the task events template tests: a function's environment and event source mapping in a template, and
// McpTaskEndpoint synthesized alone (open, so no user pool) with the props a test gives.
import { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { McpTaskEndpoint } from '../../lib/mcp-task-endpoint.js';
import type { McpTaskEndpointProps } from '../../lib/props/mcp-task-endpoint-props.js';
import { testStack } from './cdk-app.js';
import { resources, type Resource } from './endpoint-template.js';

/** The environment variables of `functionId`. */
export function variablesOf(functionId: string, source: Template): Record<string, unknown> {
  return (source.toJSON()['Resources'][functionId] as Resource).Properties['Environment'].Variables as Record<
    string,
    unknown
  >;
}

/** The one event source mapping feeding `functionId`. */
export function mappingOf(functionId: string, source: Template): Record<string, unknown> {
  const mappings = Object.values(source.findResources('AWS::Lambda::EventSourceMapping') as Record<string, Resource>)
    .map((mapping) => mapping.Properties)
    .filter((properties) => JSON.stringify(properties['FunctionName']) === JSON.stringify({ Ref: functionId }));
  expect(mappings).toHaveLength(1);
  return mappings[0]!;
}

export function synthEndpoint(props: McpTaskEndpointProps = {}) {
  const testing = testStack();
  const endpoint = new McpTaskEndpoint(testing, 'Endpoint', { openEndpoint: true, ...props });
  return { stack: testing, endpoint, template: Template.fromStack(testing) };
}

/** What constructing the endpoint with `props` throws. */
export function constructionError(props: McpTaskEndpointProps): string {
  try {
    synthEndpoint(props);
  } catch (error) {
    return String(error);
  }
  throw new Error('expected an error');
}

/** The queue policy of `queueId` in the example app's template (enforceSSL makes one per queue). */
export function queuePolicyOf(queueId: string): unknown {
  const policies = Object.values(resources('AWS::SQS::QueuePolicy')).filter((policy) =>
    JSON.stringify(policy.Properties['Queues']).includes(`"${queueId}"`),
  );
  expect(policies).toHaveLength(1);
  return policies[0]!.Properties['PolicyDocument'];
}
