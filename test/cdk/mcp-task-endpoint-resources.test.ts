// McpTaskEndpoint as deployed by the example app: the template's task table, functions and status push, and the
// options that change them. The REST API and Cognito are in mcp-task-endpoint-api.test.ts, IAM in
// mcp-task-endpoint-iam.test.ts; the OAuth proxy's own resources in the oauth-proxy-*.test.ts files.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ENV, MCP_HTTP_ENV } from '../../lambda/contract/environment-names.js';
import { METRICS_ENV, METRICS_NAMESPACE } from '../../lambda/contract/metric-names.js';
import { DECLARED_CATALOG_KEY_PREFIX } from '../../lambda/contract/declared-tool-catalog.js';
import { ASK_STEP, EXAMPLE_EXPRESS_TOOLS, EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import { EXAMPLE_DURABLE_TOOLS } from '../../lambda/example-tools/example-durable-tools.js';
import {
  OWNER_INDEX,
  OWNER_INDEX_PARTITION_KEY,
  OWNER_INDEX_PROJECTED_ATTRIBUTES,
  OWNER_INDEX_SORT_KEY,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
} from '../../lambda/contract/task-table-schema.js';
import { executionNameFor, taskKeyFromExecutionName } from '../../lambda/core/task-key.js';
import { McpTaskEndpoint } from '../../lib/mcp-task-endpoint.js';
import { declaredCatalogResource, exampleStack, logicalId, ownResources, testStack } from './cdk-app.js';
import {
  ids,
  outdir,
  resource,
  resources,
  stack,
  statusRules,
  template,
  useEndpointTemplate,
  type Resource,
} from './endpoint-template.js';
import { rolesAllowed } from './oauth-proxy-template.js';

useEndpointTemplate();

describe('task table', () => {
  it('is keyed by the task key, billed on demand, with TTL on the expiry attribute', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: PARTITION_KEY, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
  });

  it('has the sparse owner index with the projection tasks/list reads', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      // Beside the expiry sweep's index (test/cdk/expiry-sweep-schedule.test.ts).
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: OWNER_INDEX,
          KeySchema: [
            { AttributeName: OWNER_INDEX_PARTITION_KEY, KeyType: 'HASH' },
            { AttributeName: OWNER_INDEX_SORT_KEY, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...OWNER_INDEX_PROJECTED_ATTRIBUTES] },
        },
      ]),
    });
  });

  it('has point-in-time recovery and KMS encryption at rest', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('is retained when it leaves the stack, by default', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });
});

describe('functions', () => {
  it('run every handler on Node.js 22, arm64, with JSON logs in its own log group', () => {
    const functions = Object.values(ownResources(template, 'AWS::Lambda::Function'));
    // MCP, status sync, expiry sweep, reconciler, the ask step, the OAuth proxy, the task event stream and webhook
    // delivery, then the example tools' own steps (their ask steps are the endpoint's) and durable functions.
    const ownSteps = [...EXAMPLE_TOOLS, ...EXAMPLE_EXPRESS_TOOLS]
      .flatMap((tool) => Object.values(tool.lambdaSteps))
      .filter((step) => step.functionName !== ASK_STEP.functionName);
    expect(functions).toHaveLength(8 + ownSteps.length + EXAMPLE_DURABLE_TOOLS.length);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        LoggingConfig: { LogFormat: 'JSON' },
      });
      expect(fn.Properties['LoggingConfig']['LogGroup']).toEqual({ Ref: expect.any(String) });
    }
  });

  it('give the MCP function the table, the result wait, and the key of the tool catalog, not the tools', () => {
    const variables = resource(ids.mcpFunction).Properties['Environment'].Variables as Record<string, unknown>;
    expect(variables[ENV.tableName]).toEqual({ Ref: ids.table });
    expect(variables[ENV.resultWaitMs]).toBe('50000');
    expect(variables).not.toHaveProperty('REFRESH_INTERVAL_MS');
    const catalog = declaredCatalogResource(template.toJSON()['Resources']);
    expect(variables[ENV.toolCatalogItem]).toBe(catalog.create.physicalResourceId?.id);
    expect(variables[ENV.toolCatalogItem]).toMatch(new RegExp(`^${DECLARED_CATALOG_KEY_PREFIX}[0-9a-f]{64}$`));
    expect(Object.keys(variables).filter((name) => name.startsWith('TOOL_'))).toEqual([ENV.toolCatalogItem]);
    expect(variables[MCP_HTTP_ENV.openEndpointOwner]).toBeUndefined();
  });

  it("name the requestState key to the MCP function by its secret's ARN, and let that function alone read it", () => {
    const variables = resource(ids.mcpFunction).Properties['Environment'].Variables as Record<string, unknown>;
    const secretId = logicalId(stack, stack.endpoint.requestStateKey as never);
    expect(resource(secretId)).toMatchObject({
      Type: 'AWS::SecretsManager::Secret',
      Properties: { GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true } },
    });
    expect(variables[ENV.requestStateKeySecretArn]).toEqual({ Ref: secretId });
    expect(rolesAllowed(template, 'secretsmanager:GetSecretValue', secretId)).toEqual([
      logicalId(stack, stack.endpoint.mcpFunction.role as never),
    ]);
  });

  it("put no secret value in any function's environment: no dynamic reference to a secret, no literal key", () => {
    const secretIds = Object.keys(resources('AWS::SecretsManager::Secret'));
    expect(secretIds.length).toBeGreaterThan(0);
    for (const [functionId, fn] of Object.entries(resources('AWS::Lambda::Function'))) {
      const variables = (fn.Properties['Environment']?.Variables ?? {}) as Record<string, unknown>;
      for (const [name, value] of Object.entries(variables)) {
        const text = JSON.stringify(value);
        expect(text, `${functionId} ${name}`).not.toMatch(/resolve:secretsmanager|resolve:ssm-secure/);
        // A secret may be named only by its ARN (a bare Ref), never through an attribute that could carry its value.
        for (const secretId of secretIds)
          if (text.includes(`"${secretId}"`)) expect(value, `${functionId} ${name}`).toEqual({ Ref: secretId });
        expect(name, `${functionId} ${name}`).not.toMatch(/(KEY|SECRET|PASSWORD|TOKEN)$/);
      }
    }
  });

  it('let the MCP function outlive the longest blocking wait', () => {
    expect(resource(ids.mcpFunction).Properties).toMatchObject({ Timeout: 80, MemorySize: 512 });
  });

  it('give the status-sync function the table and nothing of the tools, and dead-letter its failed events', () => {
    const fn = resource(ids.statusFunction).Properties;
    expect(fn['Environment'].Variables).toEqual({
      [ENV.tableName]: { Ref: ids.table },
      NODE_OPTIONS: '--enable-source-maps',
      // Where its task metrics go (see lib/operations/endpoint-operations.ts).
      [METRICS_ENV.namespace]: METRICS_NAMESPACE,
      [METRICS_ENV.serviceName]: expect.any(String),
    });
    expect(fn['DeadLetterConfig']).toEqual({ TargetArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ids.statusFunction },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 7200,
    });
  });

  // Both eras ship: the 1.x SDK serves the legacy era, the 2.x server package the modern one; and the Events
  // extension, and the SQS client a subscription's replay queues with: those load on first use, in chunks of their own.
  it('bundle the MCP handler offline into an ESM entry file and chunks that can require Node built-ins, under 1.5 MiB in all but the task view', () => {
    const assetHash = (resource(ids.mcpFunction).Properties['Code'].S3Key as string).replace(/\.zip$/, '');
    const asset = join(outdir, `asset.${assetHash}`);
    const chunks = readdirSync(join(asset, 'chunks'))
      .filter((file) => file.endsWith('.mjs'))
      .map((file) => join(asset, 'chunks', file));
    expect(existsSync(join(asset, 'index.mjs'))).toBe(true);
    for (const file of [join(asset, 'index.mjs'), ...chunks])
      expect(readFileSync(file, 'utf8')).toMatch(/^import \{ createRequire as __createRequire \} from 'node:module';/);
    // The task view's page (an MCP App, gzipped) is a chunk of its own, read only to serve resources/read: it has a
    // budget of its own, so that the code's stays what it was.
    const isTaskView = (file: string) => /\/task-view-html-[^/]*\.mjs$/.test(file);
    const sizeOf = (files: string[]) => files.reduce((sum, file) => sum + statSync(file).size, 0);
    const files = [join(asset, 'index.mjs'), ...chunks];
    expect(sizeOf(files.filter((file) => !isTaskView(file)))).toBeLessThan(1.5 * 1024 * 1024);
    expect(files.filter(isTaskView)).toHaveLength(1);
    expect(sizeOf(files.filter(isTaskView))).toBeLessThan(256 * 1024);
  });
});

describe('status push', () => {
  it('has one rule per machine that runs tasks (an EXPRESS tool’s wrapper), matching only its status-change events', () => {
    // The durable function tool's rule: mcp-task-endpoint-durable.test.ts.
    const rules = statusRules()
      .map((rule) => rule.Properties['EventPattern'])
      .filter((pattern) => (pattern as { source: string[] }).source[0] === 'aws.states');
    const wrapper = logicalId(stack, stack.endpoint.expressWrappers['extract_keywords']!.stateMachine);
    expect(rules).toEqual(
      [...ids.machines, wrapper].map((machine) => ({
        source: ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: {
          stateMachineArn: [{ Ref: machine }],
          name: [{ prefix: 'task-' }],
          status: ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'],
        },
      })),
    );
  });

  it('matches exactly the execution names the backend gives its tasks (the rules and grants above say task-)', () => {
    const name = executionNameFor('0'.repeat(64), '0'.repeat(10));
    expect(name.startsWith('task-')).toBe(true);
    expect(taskKeyFromExecutionName(name)).toBe('0'.repeat(64));
  });

  it('alarms as soon as a status event is in the dead-letter queue', () => {
    expect(logicalId(stack, stack.endpoint.statusDeadLetterAlarm)).toMatch(/StatusDeadLetterAlarm/);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.queue, 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('targets the status-sync function with retries and the dead-letter queue', () => {
    for (const rule of statusRules()) {
      expect(rule.Properties['Targets']).toEqual([
        expect.objectContaining({
          Arn: { 'Fn::GetAtt': [ids.statusFunction, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 7200 },
        }),
      ]);
    }
  });

  it('keeps the dead-letter queue encrypted and reachable over TLS only', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('options', () => {
  it('reserves the MCP function’s concurrency when asked, and only then', () => {
    expect(resource(ids.mcpFunction).Properties['ReservedConcurrentExecutions']).toBeUndefined();
    const { stack: reserved, template: withReserve } = exampleStack({
      props: { endpoint: { mcpFunctionReservedConcurrency: 200 } },
    });
    const fn = withReserve.toJSON()['Resources'][logicalId(reserved, reserved.endpoint.mcpFunction)] as Resource;
    expect(fn.Properties['ReservedConcurrentExecutions']).toBe(200);
    expect(resource(ids.statusFunction).Properties['ReservedConcurrentExecutions']).toBeUndefined();
  });

  it('leaves X-Ray and Powertools Tracer off by default', () => {
    for (const fn of Object.values(ownResources(template, 'AWS::Lambda::Function'))) {
      expect(fn.Properties['TracingConfig']).toBeUndefined();
      expect(fn.Properties['Environment'].Variables[ENV.tracing]).toBeUndefined();
    }
  });

  it('turns on active X-Ray tracing and Powertools Tracer in every function when tracing is on', () => {
    const { template: traced } = exampleStack({ props: { endpoint: { tracing: true } } });
    const functions = Object.values(ownResources(traced, 'AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) {
      expect(fn.Properties['TracingConfig']).toEqual({ Mode: 'Active' });
      expect(fn.Properties['Environment'].Variables[ENV.tracing]).toBe('true');
    }
  });

  it('leaves the account’s API Gateway CloudWatch role alone by default (the example app opts in)', () => {
    const { template: withoutRole } = exampleStack({
      props: { endpoint: { machineClient: true, createApiGatewayAccountRole: false } },
    });
    withoutRole.resourceCountIs('AWS::ApiGateway::Account', 0);
    const bare = testStack();
    new McpTaskEndpoint(bare, 'Endpoint');
    Template.fromStack(bare).resourceCountIs('AWS::ApiGateway::Account', 0);
  });

  it('sets the account’s API Gateway CloudWatch role on request, and retains the role', () => {
    const { template: withRole } = exampleStack({ props: { endpoint: { createApiGatewayAccountRole: true } } });
    withRole.resourceCountIs('AWS::ApiGateway::Account', 1);
    const [roleId] = Object.keys(
      withRole.findResources('AWS::IAM::Role', {
        Properties: {
          AssumeRolePolicyDocument: {
            Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
          },
        },
      }),
    );
    expect(roleId).toBeDefined();
    withRole.hasResource('AWS::ApiGateway::Account', {
      Properties: { CloudWatchRoleArn: { 'Fn::GetAtt': [roleId, 'Arn'] } },
    });
    // The stage, whose access logs need the role, is created only once the account names it.
    const [accountId] = Object.keys(withRole.findResources('AWS::ApiGateway::Account'));
    withRole.hasResource('AWS::ApiGateway::Stage', { DependsOn: Match.arrayWith([accountId]) });
    withRole.hasResource('AWS::IAM::Role', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        AssumeRolePolicyDocument: Match.objectLike({
          Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
        }),
      }),
    });
  });

  it('names the example machines’ log groups (and the EXPRESS wrapper’s) anew for each creation of the stack', () => {
    const names = Object.values(ownResources(template, 'AWS::Logs::LogGroup'))
      .map((group) => group.Properties['LogGroupName'])
      .filter((name) => name !== undefined);
    expect(names).toHaveLength(EXAMPLE_TOOLS.length + EXAMPLE_EXPRESS_TOOLS.length + 1);
    for (const name of names) {
      expect(name).toEqual({
        'Fn::Join': [
          '',
          [
            expect.stringMatching(/^\/aws\/vendedlogs\/states\/McpTasks-?[A-Za-z0-9]+-$/),
            { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] },
          ],
        ],
      });
    }
  });
});
