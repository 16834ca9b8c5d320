// McpTaskEndpoint with a durable function as a tool: what each function may do to the function's executions (only this
// backend's, `task-*`, of this one function), the status rule that follows them, the tool's workflow in the MCP
// function's environment, and the registrations synth refuses.
import { createHash } from 'node:crypto';
import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import {
  DURABLE_EXECUTION_STATUS_CHANGE,
  LAMBDA_EVENT_SOURCE,
} from '../../lambda/contract/durable-execution-status-events.js';
import { MCP_HTTP_ENV } from '../../lambda/contract/environment-names.js';
import { STATUS_EVENT_MAX_AGE, STATUS_EVENT_TARGET_RETRY_ATTEMPTS } from '../../lib/mcp-task-endpoint-defaults.js';
import { McpTaskEndpoint, type McpToolProps } from '../../lib/mcp-task-endpoint.js';
import { joined, logicalId, statementsOf, testApp, testStack, TEST_ENV, type TemplateResource } from './cdk-app.js';

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
      table: logicalId(stack, endpoint.table),
      queue: logicalId(stack, endpoint.statusDeadLetterQueue),
    },
  };
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
            'lambda:GetDurableExecutionHistory',
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
    expect(lambdaActions.sort()).toEqual([
      'lambda:GetDurableExecution',
      'lambda:GetDurableExecutionHistory',
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

  it('names the tool’s workflow in the MCP function’s environment by the alias’s ARN', () => {
    const variables = (template.toJSON()['Resources'][ids.mcp] as TemplateResource).Properties['Environment'].Variables;
    expect(joined(variables[MCP_HTTP_ENV.toolStateMachineArns])).toBe(`\${${ids.alias}}`);
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
    const variables = template.toJSON()['Resources'][logicalId(stack, endpoint.mcpFunction)].Properties.Environment
      .Variables as Record<string, unknown>;
    expect(joined(variables[MCP_HTTP_ENV.toolStateMachineArns])).toBe(`\${${versionId}}`);
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
    expect(
      template.toJSON()['Resources'][mcp].Properties.Environment.Variables[MCP_HTTP_ENV.toolStateMachineArns],
    ).toBe(arn);
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

describe('the MCP function environment with durable tools', () => {
  /** `count` tools, on durable functions' aliases or on state machines, with descriptions Brotli cannot shrink. */
  function endpointWith(count: number, durable: boolean): Stack {
    const stack = testStack();
    const tools = Array.from({ length: count }, (_, index): McpToolProps => {
      const description = createHash('sha256').update(String(index)).digest('hex').slice(0, 60);
      if (durable)
        return tool(`t${index}`, {
          description,
          durableFunction: durableFunction(stack, `F${index}`).addAlias('live'),
        });
      const definitionBody = sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, `P${index}`));
      return tool(`t${index}`, {
        description,
        stateMachine: new sfn.StateMachine(stack, `M${index}`, { definitionBody }),
      });
    });
    new McpTaskEndpoint(stack, 'Endpoint', { tools });
    return stack;
  }

  it("counts an alias's ARN at its longest, past a state machine's, in the 4 KB check", () => {
    expect(synthError(endpointWith(8, false))).toBeUndefined();
    expect(synthError(endpointWith(8, true))).toContain("The tool catalog may not fit the MCP function's environment");
  });
});
