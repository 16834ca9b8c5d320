// McpTaskEndpoint with a durable function as a tool: what each function may do to the function's executions (only this
// backend's, `task-*`, of this one function), the status rule that follows them, the tool's workflow in the declared
// tool catalog's item, and the registrations synth refuses.
import { createHash } from 'node:crypto';
import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import {
  DURABLE_EXECUTION_STATUS_CHANGE,
  LAMBDA_EVENT_SOURCE,
} from '../../lambda/contract/durable-execution-status-events.js';
import { DECLARED_CATALOG_ATTRIBUTE } from '../../lambda/contract/declared-tool-catalog.js';
import {
  STATUS_EVENT_MAX_AGE,
  STATUS_EVENT_TARGET_RETRY_ATTEMPTS,
} from '../../lib/props/mcp-task-endpoint-defaults.js';
import { McpTaskEndpoint, type McpToolProps } from '../../lib/mcp-task-endpoint.js';
import {
  declaredCatalogResource,
  logicalId,
  statementsOf,
  testApp,
  testStack,
  TEST_ENV,
  type TemplateResource,
} from './cdk-app.js';

const SCHEMA = { type: 'object', properties: {} } as const;
const DURABLE_CONFIG = { executionTimeout: Duration.hours(1) };

function durableFunction(stack: Stack, id = 'Review', props: Partial<lambda.FunctionProps> = {}): lambda.Function {
  return new lambda.Function(stack, id, {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({});'),
    durableConfig: DURABLE_CONFIG,
    ...props,
  });
}

function tool(name: string, overrides: Partial<McpToolProps>): McpToolProps {
  return { name, description: `Tool ${name}`, inputSchema: SCHEMA, ...overrides };
}

/** A stack with one durable tool on the function's `live` alias, and the template's logical IDs. */
function durableToolStack() {
  const stack = testStack();
  const fn = durableFunction(stack);
  const alias = fn.addAlias('live');
  const endpoint = new McpTaskEndpoint(stack, 'Endpoint', { tools: [tool('review', { durableFunction: alias })] });
  const template = Template.fromStack(stack);
  return {
    stack,
    endpoint,
    template,
    ids: {
      fn: logicalId(stack, fn),
      alias: logicalId(stack, alias),
      mcp: logicalId(stack, endpoint.mcpFunction),
      statusSync: logicalId(stack, endpoint.statusSyncFunction),
      sweep: logicalId(stack, endpoint.expirySweep.function),
      reconciler: logicalId(stack, endpoint.reconciler.function),
      table: logicalId(stack, endpoint.table),
      queue: logicalId(stack, endpoint.statusDeadLetterQueue),
    },
  };
}

/** The workflow entries of the declared tool catalog's item, tokens rendered as `${LogicalId}`. */
function catalogEntries(template: Template): string {
  const item = declaredCatalogResource(template.toJSON()['Resources']).create.parameters['Item'];
  return (item as Record<string, { S: string }>)[DECLARED_CATALOG_ATTRIBUTE.stateMachines]!.S;
}

const functionArn = (fnId: string) => ({ 'Fn::GetAtt': [fnId, 'Arn'] });
const withSuffix = (fnId: string, suffix: string) => ({ 'Fn::Join': ['', [functionArn(fnId), suffix]] });
const executions = (fnId: string) => withSuffix(fnId, ':*/durable-execution/task-*');

function synthError(stack: Stack): string | undefined {
  try {
    Template.fromStack(stack);
    return undefined;
  } catch (error) {
    return String(error);
  }
}

describe('McpTaskEndpoint with a durable function tool', () => {
  const { template, ids, endpoint } = durableToolStack();

  it('lets the MCP function invoke only the registered alias, and find, read, stop and answer only this backend’s executions of the function', () => {
    const statements = statementsOf(template, ids.mcp);
    expect(statements).toEqual(
      expect.arrayContaining([
        { Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: [{ Ref: ids.alias }] },
        {
          Effect: 'Allow',
          Action: [
            'lambda:GetDurableExecution',
            'lambda:SendDurableExecutionCallbackSuccess',
            'lambda:StopDurableExecution',
          ],
          Resource: [executions(ids.fn)],
        },
        {
          Effect: 'Allow',
          Action: ['lambda:ListDurableExecutionsByFunction'],
          Resource: [functionArn(ids.fn), withSuffix(ids.fn, ':*')],
        },
      ]),
    );
    // Nothing else of Lambda: no other function, no configuration.
    const lambdaActions = statements.flatMap((statement) => statement.Action).filter((a) => a.startsWith('lambda:'));
    // No history either: polls read only the table, and the reconciler reads the current step.
    expect(lambdaActions.sort()).toEqual([
      'lambda:GetDurableExecution',
      'lambda:InvokeFunction',
      'lambda:ListDurableExecutionsByFunction',
      'lambda:SendDurableExecutionCallbackSuccess',
      'lambda:StopDurableExecution',
    ]);
  });

  it('lets status-sync read, and the expiry sweep find, read and stop, only this backend’s executions', () => {
    expect(statementsOf(template, ids.statusSync)).toContainEqual({
      Effect: 'Allow',
      Action: ['lambda:GetDurableExecution'],
      Resource: [executions(ids.fn)],
    });
    expect(statementsOf(template, ids.sweep)).toEqual(
      expect.arrayContaining([
        {
          Effect: 'Allow',
          Action: ['lambda:GetDurableExecution', 'lambda:StopDurableExecution'],
          Resource: [executions(ids.fn)],
        },
        {
          Effect: 'Allow',
          Action: ['lambda:ListDurableExecutionsByFunction'],
          Resource: [functionArn(ids.fn), withSuffix(ids.fn, ':*')],
        },
      ]),
    );
  });

  it('lets the reconciler find, read and read the history of only this backend’s executions, and nothing else of Lambda', () => {
    const statements = statementsOf(template, ids.reconciler);
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          Effect: 'Allow',
          Action: ['lambda:GetDurableExecution', 'lambda:GetDurableExecutionHistory'],
          Resource: [executions(ids.fn)],
        },
        {
          Effect: 'Allow',
          Action: ['lambda:ListDurableExecutionsByFunction'],
          Resource: [functionArn(ids.fn), withSuffix(ids.fn, ':*')],
        },
      ]),
    );
    const lambdaActions = statements.flatMap((statement) => statement.Action).filter((a) => a.startsWith('lambda:'));
    expect(lambdaActions.sort()).toEqual([
      'lambda:GetDurableExecution',
      'lambda:GetDurableExecutionHistory',
      'lambda:ListDurableExecutionsByFunction',
    ]);
  });

  it('pushes the status changes of this function’s task-* executions, RUNNING and terminal, to status-sync', () => {
    const rule = Object.values(template.findResources('AWS::Events::Rule') as Record<string, TemplateResource>).find(
      (candidate) => candidate.Properties['EventPattern']?.source?.[0] === LAMBDA_EVENT_SOURCE,
    )!;
    expect(rule.Properties['EventPattern']).toEqual({
      source: [LAMBDA_EVENT_SOURCE],
      'detail-type': [DURABLE_EXECUTION_STATUS_CHANGE],
      detail: {
        durableExecutionArn: [{ prefix: withSuffix(ids.fn, ':') }],
        durableExecutionName: [{ prefix: 'task-' }],
        status: ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'STOPPED'],
      },
    });
    expect(rule.Properties['Targets']).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [ids.statusSync, 'Arn'] },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
        RetryPolicy: {
          MaximumRetryAttempts: STATUS_EVENT_TARGET_RETRY_ATTEMPTS,
          MaximumEventAgeInSeconds: STATUS_EVENT_MAX_AGE.toSeconds(),
        },
      }),
    ]);
    expect(endpoint.statusRules).toHaveLength(1);
  });

  it('names the tool’s workflow in the declared tool catalog’s item by the alias’s ARN', () => {
    expect(catalogEntries(template)).toBe(`\${${ids.alias}}`);
  });
});

describe('McpTaskEndpoint durable function forms', () => {
  it('invokes a current version, and names it by the version’s ARN', () => {
    const stack = testStack();
    const fn = durableFunction(stack);
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [tool('review', { durableFunction: fn.currentVersion })],
    });
    const template = Template.fromStack(stack);
    // The version's logical ID carries a hash of the function's configuration, made at synth.
    const [versionId] = Object.keys(template.findResources('AWS::Lambda::Version'));
    expect(statementsOf(template, logicalId(stack, endpoint.mcpFunction))).toContainEqual({
      Effect: 'Allow',
      Action: ['lambda:InvokeFunction'],
      Resource: [{ Ref: versionId }],
    });
    expect(catalogEntries(template)).toBe(`\${${versionId}}`);
  });

  it('invokes $LATEST for fn.latestVersion', () => {
    const stack = testStack();
    const fn = durableFunction(stack);
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [tool('review', { durableFunction: fn.latestVersion })],
    });
    expect(statementsOf(Template.fromStack(stack), logicalId(stack, endpoint.mcpFunction))).toContainEqual({
      Effect: 'Allow',
      Action: ['lambda:InvokeFunction'],
      Resource: [withSuffix(logicalId(stack, fn), ':$LATEST')],
    });
  });

  it('takes a qualified ARN as it is, and leaves the function (not in this app) alone', () => {
    const stack = testStack();
    const arn = `arn:aws:lambda:${TEST_ENV.region}:${TEST_ENV.account}:function:review:live`;
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', { tools: [tool('review', { durableFunction: arn })] });
    const template = Template.fromStack(stack);
    const mcp = logicalId(stack, endpoint.mcpFunction);
    const base = `arn:aws:lambda:${TEST_ENV.region}:${TEST_ENV.account}:function:review`;
    expect(statementsOf(template, mcp)).toEqual(
      expect.arrayContaining([
        { Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: [arn] },
        expect.objectContaining({ Resource: [`${base}:*/durable-execution/task-*`] }),
        { Effect: 'Allow', Action: ['lambda:ListDurableExecutionsByFunction'], Resource: [base, `${base}:*`] },
      ]),
    );
    expect(catalogEntries(template)).toBe(arn);
  });

  it('grants and follows a function shared by two tools once, and invokes each tool’s own alias', () => {
    const stack = testStack();
    const fn = durableFunction(stack);
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [
        tool('review', { durableFunction: fn.addAlias('live') }),
        tool('review_beta', { durableFunction: fn.addAlias('beta') }),
      ],
    });
    expect(endpoint.statusRules).toHaveLength(1);
    const invoke = statementsOf(Template.fromStack(stack), logicalId(stack, endpoint.mcpFunction)).find((statement) =>
      statement.Action.includes('lambda:InvokeFunction'),
    )!;
    expect(invoke.Resource).toHaveLength(2);
  });
});

describe('McpTaskEndpoint durable function refusals (at synth)', () => {
  it('refuses an unqualified function, an unqualified ARN, a function without durableConfig, both and neither workflows, in one error', () => {
    const stack = testStack();
    const plain = durableFunction(stack, 'Plain', { durableConfig: undefined } as never);
    const durable = durableFunction(stack, 'Durable');
    new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [
        tool('bare_function', { durableFunction: durable as never }),
        tool('bare_arn', { durableFunction: `arn:aws:lambda:${TEST_ENV.region}:${TEST_ENV.account}:function:review` }),
        tool('not_durable', { durableFunction: plain.addAlias('live') }),
        tool('both', {
          durableFunction: durable.latestVersion,
          stateMachine: `arn:aws:states:${TEST_ENV.region}:${TEST_ENV.account}:stateMachine:job`,
        }),
        tool('neither', {}),
        tool('typed', {
          durableFunction: durable.latestVersion,
          stateMachineType: 'EXPRESS' as never,
        }),
        tool('elsewhere', { durableFunction: `arn:aws:lambda:us-west-2:${TEST_ENV.account}:function:review:live` }),
      ],
    });
    const error = synthError(stack)!;
    expect(error).toContain(
      "Tool 'bare_function': durableFunction is a function without a version or alias, and Lambda starts " +
        'durable executions only of a qualified function: pass fn.currentVersion, fn.latestVersion or an alias',
    );
    expect(error).toContain(
      `Tool 'bare_arn': 'arn:aws:lambda:${TEST_ENV.region}:${TEST_ENV.account}:function:review' names no ` +
        'version or alias',
    );
    expect(error).toContain(
      "Tool 'not_durable': its function TestStack/Plain is not durable (it has no durableConfig); durability can " +
        'only be set when a function is created',
    );
    expect(error).toContain("Tool 'both': give exactly one of stateMachine and durableFunction (it has both)");
    expect(error).toContain("Tool 'neither': give exactly one of stateMachine and durableFunction (it has neither)");
    expect(error).toContain("Tool 'typed': stateMachineType applies to a stateMachine only");
    expect(error).toContain("Tool 'elsewhere': its function is in region us-west-2, the endpoint in region eu-west-1");
  });

  it('binds nothing for a tool it refuses', () => {
    const stack = testStack();
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [tool('bare', { durableFunction: durableFunction(stack) as never })],
    });
    expect(endpoint.statusRules).toHaveLength(0);
  });

  it('accepts a qualified ARN anywhere when the stack’s region and account are unresolved', () => {
    const stack = new Stack(testApp(), 'Agnostic');
    new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [tool('review', { durableFunction: 'arn:aws:lambda:us-west-2:210987654321:function:review:3' })],
    });
    expect(synthError(stack)).toBeUndefined();
  });
});

describe('cdk-nag AwsSolutionsChecks on an endpoint with a durable function tool', () => {
  it("leaves no unacknowledged finding on the endpoint's own resources", () => {
    const { stack, endpoint } = durableToolStack();
    const violations = new AwsSolutionsChecks().validateScope(stack.node.root).violations;
    const ours = violations.flatMap((violation) =>
      violation.violatingResources
        .map((resource) => (resource as { constructPath?: string }).constructPath ?? resource.resourceLogicalId)
        .filter((path) => path?.startsWith(`${endpoint.node.path}/`))
        .map((path) => `${violation.ruleName} ${path}`),
    );
    expect(ours).toEqual([]);
  });
});

describe('the declared tool catalog with durable tools', () => {
  it("carries every durable tool's alias in the item, none in the MCP function's 4 KB environment", () => {
    const stack = testStack();
    const aliases = Array.from({ length: 20 }, (_, index) => durableFunction(stack, `F${index}`).addAlias('live'));
    const tools = aliases.map((alias, index) =>
      tool(`t${index}`, {
        description: createHash('sha256').update(String(index)).digest('hex').slice(0, 60),
        durableFunction: alias,
      }),
    );
    new McpTaskEndpoint(stack, 'Endpoint', { tools });
    expect(synthError(stack)).toBeUndefined();
    expect(catalogEntries(Template.fromStack(stack))).toBe(
      aliases.map((alias) => `\${${logicalId(stack, alias)}}`).join(','),
    );
  });
});
