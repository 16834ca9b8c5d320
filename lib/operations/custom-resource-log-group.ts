// CDK's shared AwsCustomResource provider (one function per stack, AWS679f…, behind the tool catalog's write and the
// OAuth proxy's read of its Cognito client secret) gets its own log group in the template, `/aws/lambda/<function>`,
// under the @aws-cdk/aws-lambda:useCdkManagedLogGroup flag. That log group names the function, so CloudFormation makes
// it after the function, and nothing orders it before the custom resources the function serves: a custom resource
// made first runs the function, whose first log line makes Lambda create `/aws/lambda/<function>`, and the template's
// log group then fails "already exists". Deletion races the other way (the log group deleted, then a custom resource's
// delete runs the function and leaves a new log group behind). Each custom resource waits for the log group instead.
import { Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as cr from 'aws-cdk-lib/custom-resources';
import type { IConstruct } from 'constructs';
import { AWS_CUSTOM_RESOURCE_PROVIDER_ID } from './nag-acknowledgements.js';

/**
 * Has every AwsCustomResource in `scope` (CDK's own included, such as a user pool client's secret reader) depend on its
 * provider function's log group, when the provider has one (without the flag Lambda alone makes it: no race).
 */
export function awaitCustomResourceLogGroup(scope: IConstruct): void {
  const provider = Stack.of(scope).node.tryFindChild(AWS_CUSTOM_RESOURCE_PROVIDER_ID);
  const logGroup = provider?.node.tryFindChild('LogGroup');
  if (!(logGroup instanceof logs.LogGroup)) return;
  for (const resource of scope.node.findAll())
    if (resource instanceof cr.AwsCustomResource) resource.node.addDependency(logGroup);
}
