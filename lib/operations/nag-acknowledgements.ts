// Acknowledging cdk-nag's wildcard-resource finding for one specific resource ARN, however it is built from tokens.
import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The resource as cdk-nag prints it in a finding ID: `{Ref: X}` as `<X>`, `{Fn::GetAtt: [X, Y]}` as `<X.Y>`,
 * `Fn::Join` joined, anything else as JSON (cdk-nag's utils/flatten-cfn-reference, which it does not export).
 */
export function flattenCfnReference(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (typeof value === 'object' && value !== null) {
    const node = value as Record<string, unknown>;
    if (node['Fn::Join']) {
      const [delimiter, items] = node['Fn::Join'] as [string, unknown[]];
      return items.map(flattenCfnReference).join(delimiter);
    }
    if (node['Fn::Sub']) return flattenCfnReference(node['Fn::Sub']);
    if (node['Fn::GetAtt']) {
      const [resource, attribute] = node['Fn::GetAtt'] as [unknown, unknown];
      return `<${flattenCfnReference(resource)}.${flattenCfnReference(attribute)}>`;
    }
    if (node['Fn::ImportValue']) return flattenCfnReference(node['Fn::ImportValue']);
    if (node['Ref']) return `<${flattenCfnReference(node['Ref'])}>`;
  }
  return JSON.stringify(value);
}

/**
 * Acknowledges AwsSolutions-IAM5 for exactly `resourceArn` on `scope` and below, so any other wildcard still fails.
 * Resolved now: the logical IDs it names must not be overridden later.
 */
export function acknowledgeWildcardResource(scope: IConstruct, resourceArn: string, reason: string): void {
  const flattened = flattenCfnReference(Stack.of(scope).resolve(resourceArn));
  Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${flattened}]`, reason });
}

/** Why ListDurableExecutionsByFunction is granted on the function's qualifiers as well as on the function. */
export const LIST_BY_FUNCTION_REASON =
  'ListDurableExecutionsByFunction finds a task’s durable execution by its name; the wildcard covers the ' +
  'versions and aliases of the one function behind a registered tool, no other function.';

/** The construct ID CDK gives the one AwsCustomResource provider function of a stack. */
export const AWS_CUSTOM_RESOURCE_PROVIDER_ID = 'AWS679f53fac002430cb0da5b7982bd2287';

/**
 * Acknowledges the managed policy and the runtime of CDK's shared AwsCustomResource provider in `scope`'s stack, once
 * an AwsCustomResource has made it; each resource's own calls are allowed by a policy of its own, scoped to its
 * resource.
 */
export function acknowledgeCustomResourceProvider(scope: IConstruct): void {
  const provider = Stack.of(scope).node.tryFindChild(AWS_CUSTOM_RESOURCE_PROVIDER_ID);
  if (provider === undefined) return;
  Validations.of(provider).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason:
      "CDK's AwsCustomResource provider, which makes this stack's deploy-time calls (the tool catalog's write, the " +
      "Cognito client secret's read): AWS maintains this managed policy for writing its logs.",
  });
  // aws-cdk-lib picks the provider's runtime (the region's latest Node.js runtime fact, nodejs24.x where it has none),
  // with no property to set it; cdk-nag's newest runtime is the newest aws-cdk-lib knows (nodejs26.x since 2.278).
  Validations.of(provider).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      "CDK's AwsCustomResource provider, whose runtime aws-cdk-lib chooses (the region's latest Node.js runtime " +
      'it has deployed) and offers no property to change; it moves when aws-cdk-lib does.',
  });
}
