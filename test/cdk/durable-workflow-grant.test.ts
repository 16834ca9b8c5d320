// McpTaskEndpoint.grantTaskItemWrites: what a durable function tool's workflow needs for the ask and progress helpers
// (UpdateItem on the task table only, and the table's name in its environment), for a function made in the app and
// one imported into it; cdk-nag clean.
import { Duration } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../lambda/contract/environment-names.js';
import { McpTaskEndpoint } from '../../lib/mcp-task-endpoint.js';
import { logicalId, statementsOf, testStack } from './cdk-app.js';

const ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:review';

function durableFunction(stack: ReturnType<typeof testStack>): lambda.Function {
  return new lambda.Function(stack, 'Review', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({});'),
    durableConfig: { executionTimeout: Duration.hours(1) },
  });
}

describe('McpTaskEndpoint.grantTaskItemWrites', () => {
  it("names the task table in the function's environment and grants UpdateItem on the table alone", () => {
    const stack = testStack();
    const fn = durableFunction(stack);
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint');
    endpoint.grantTaskItemWrites(fn);
    const template = Template.fromStack(stack);
    const table = { 'Fn::GetAtt': [logicalId(stack, endpoint.table), 'Arn'] };
    const functionProps = template.toJSON().Resources[logicalId(stack, fn)].Properties;
    expect(functionProps.Environment.Variables[ENV.tableName]).toEqual({ Ref: logicalId(stack, endpoint.table) });
    expect(statementsOf(template, logicalId(stack, fn))).toEqual([
      { Action: ['dynamodb:UpdateItem'], Effect: 'Allow', Resource: [table] },
    ]);
  });

  it("also grants the table's key when the table has one", () => {
    const stack = testStack();
    const fn = durableFunction(stack);
    const key = new kms.Key(stack, 'TableKey');
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', { tableEncryptionKey: key });
    const grant = endpoint.grantTaskItemWrites(fn);
    const actions = statementsOf(Template.fromStack(stack), logicalId(stack, fn)).flatMap((statement) =>
      [statement.Action].flat(),
    );
    expect(actions).toContain('dynamodb:UpdateItem');
    expect(actions).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:Encrypt']));
    // The grant returned covers the key too, so whatever depends on it waits for both statements.
    const granted = grant.principalStatements.flatMap((statement) => statement.actions);
    expect(granted).toEqual(expect.arrayContaining(['dynamodb:UpdateItem', 'kms:Decrypt', 'kms:Encrypt']));
  });

  it('grants an imported function the permission through its role, and leaves its environment to its owner', () => {
    const stack = testStack();
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint');
    const role = new iam.Role(stack, 'ReviewRole', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    const imported = lambda.Function.fromFunctionAttributes(stack, 'Imported', {
      functionArn: ARN,
      role,
      sameEnvironment: true,
    });
    expect(endpoint.grantTaskItemWrites(imported).success).toBe(true);
    const template = Template.fromStack(stack);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      (policy['Properties'].Roles as { Ref: string }[]).some((each) => each.Ref === logicalId(stack, role)),
    );
    expect(policies.flatMap((policy) => policy['Properties'].PolicyDocument.Statement)).toEqual([
      {
        Action: 'dynamodb:UpdateItem',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [logicalId(stack, endpoint.table), 'Arn'] },
      },
    ]);
  });

  it('grants a function imported without a role nothing: CDK warns that its owner must add the statement', () => {
    const policies = (grant: boolean) => {
      const stack = testStack();
      const endpoint = new McpTaskEndpoint(stack, 'Endpoint');
      const imported = lambda.Function.fromFunctionArn(stack, 'Imported', ARN);
      if (grant) endpoint.grantTaskItemWrites(imported);
      return { stack, policies: Template.fromStack(stack).findResources('AWS::IAM::Policy') };
    };
    const granted = policies(true);
    expect(granted.policies).toEqual(policies(false).policies);
    Annotations.fromStack(granted.stack).hasWarning(
      '/TestStack/Imported',
      Match.stringLikeRegexp("Add statement to this resource's role.*dynamodb:UpdateItem"),
    );
  });

  it('leaves cdk-nag nothing to find on the endpoint or on the statement it adds to the function', () => {
    const stack = testStack();
    const fn = durableFunction(stack);
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint');
    endpoint.grantTaskItemWrites(fn);
    const violations = new AwsSolutionsChecks().validateScope(stack.node.root).violations;
    const policyPath = `${fn.role!.node.path}/DefaultPolicy`;
    const ours = violations.flatMap((violation) =>
      violation.violatingResources
        .map((resource) => (resource as { constructPath?: string }).constructPath ?? resource.resourceLogicalId)
        .filter((path) => path?.startsWith(`${endpoint.node.path}/`) || path?.startsWith(policyPath))
        .map((path) => `${violation.ruleName} ${path}`),
    );
    expect(ours).toEqual([]);
  });
});
