// McpTaskEndpoint's checks: bad props fail at construction and bad tools at synth, each with every problem listed;
// an open endpoint warns; an environment too large for Lambda fails before deploy (the tools are not in it).
import { createHash } from 'node:crypto';
import { Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { ENV } from '../../lambda/contract/environment-names.js';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { describe, expect, it } from 'vitest';
import { McpTaskEndpoint, type McpToolProps } from '../../lib/mcp-task-endpoint.js';
import { declaredCatalogResource, declaredCatalogTools, logicalId, testApp, testStack } from './cdk-app.js';

const SCHEMA = { type: 'object', properties: {} } as const;
const MACHINE_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:nightly-report';

function tool(name: string, overrides: Partial<McpToolProps> = {}): McpToolProps {
  return { name, description: `Tool ${name}`, inputSchema: SCHEMA, stateMachine: MACHINE_ARN, ...overrides };
}

function errorOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    return String(error);
  }
  throw new Error('expected an error');
}

/** The error synth raises for the stack, or `undefined` when it synthesizes. */
function synthError(endpoint: McpTaskEndpoint): string | undefined {
  try {
    Template.fromStack(endpoint.node.scope as never);
    return undefined;
  } catch (error) {
    return String(error);
  }
}

describe('McpTaskEndpoint tool validation (at synth)', () => {
  it('accepts tools named by MCP’s rules, on a machine ARN or a STANDARD machine of the app', () => {
    const stack = testStack();
    const machine = new sfn.StateMachine(stack, 'Machine', {
      definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'Pass')),
    });
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', { tools: [tool('report.nightly_v2-beta')] }).addTool(
      tool('from_app', { stateMachine: machine }),
    );
    expect(synthError(endpoint)).toBeUndefined();
  });

  it('reports every bad name, duplicate, schema and machine in one error', () => {
    const stack = testStack();
    const express = new sfn.StateMachine(stack, 'Express', {
      stateMachineType: sfn.StateMachineType.EXPRESS,
      definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'Pass')),
    });
    // A machine made in this app has its type read from it: here one that contradicts it.
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint')
      .addTool(tool('has space'))
      .addTool(tool('x'.repeat(129)))
      .addTool(tool('twice'))
      .addTool(tool('twice'))
      .addTool(tool('task_result'))
      .addTool(tool('no_object', { inputSchema: { type: 'array' } as never }))
      .addTool(tool('bad_arn', { stateMachine: 'arn:aws:lambda:eu-west-1:123456789012:function:nope' }))
      .addTool(tool('alias_arn', { stateMachine: `${MACHINE_ARN}:live` }))
      .addTool(tool('express', { stateMachine: express, stateMachineType: sfn.StateMachineType.STANDARD }));
    const error = synthError(endpoint);
    expect(error).toContain("Tool name 'has space' must be 1-128 characters");
    expect(error).toContain(`Tool name '${'x'.repeat(129)}' must be 1-128 characters`);
    expect(error).toContain("Tool name 'twice' is registered more than once");
    expect(error).toContain("Tool name 'task_result' is reserved");
    expect(error).toContain('Tool \'no_object\': inputSchema must be a JSON Schema with "type": "object"');
    expect(error).toContain(
      "Tool 'bad_arn': 'arn:aws:lambda:eu-west-1:123456789012:function:nope' is not an unqualified state machine ARN",
    );
    expect(error).toContain("Tool 'alias_arn'");
    expect(error).toContain("Tool 'express': stateMachineType is STANDARD, but its state machine is EXPRESS");
  });

  it('grants and routes a machine shared by two tools once', () => {
    const stack = testStack();
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', { tools: [tool('first'), tool('second')] });
    expect(endpoint.statusRules).toHaveLength(1);
    // One status rule, beside the expiry sweep's and the reconciler's schedules.
    Template.fromStack(stack).resourceCountIs('AWS::Events::Rule', 3);
  });

  it('includes a tool added after something already resolved the function’s environment and the catalog', () => {
    const stack = testStack();
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', { tools: [tool('early')] });
    const early = stack.resolve((endpoint.mcpFunction.node.defaultChild as CfnFunction).environment);
    endpoint.addTool(tool('late', { stateMachine: `${MACHINE_ARN}-late` }));
    const template = Template.fromStack(stack).toJSON();
    const catalog = declaredCatalogResource(template['Resources']);
    expect(declaredCatalogTools(catalog.create).map((each) => [each.name, each.stateMachineArn])).toEqual([
      ['early', MACHINE_ARN],
      ['late', `${MACHINE_ARN}-late`],
    ]);
    // A new catalog is a new key: the function's environment names the version with the late tool.
    const variables = template['Resources'][logicalId(stack, endpoint.mcpFunction)].Properties.Environment.Variables;
    expect(variables[ENV.toolCatalogItem]).toBe(catalog.create.physicalResourceId?.id);
    expect(variables[ENV.toolCatalogItem]).not.toBe(early.variables[ENV.toolCatalogItem]);
  });

  it('refuses a machine ARN in another region or account, naming both', () => {
    const stack = testStack();
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [
        tool('other_region', { stateMachine: 'arn:aws:states:us-west-2:123456789012:stateMachine:remote-job' }),
        tool('other_account', { stateMachine: 'arn:aws:states:eu-west-1:210987654321:stateMachine:remote-job' }),
      ],
    });
    const error = synthError(endpoint);
    expect(error).toContain(
      "Tool 'other_region': its state machine is in region us-west-2, the endpoint in region eu-west-1",
    );
    expect(error).toContain(
      "Tool 'other_account': its state machine is in account 210987654321, the endpoint in account 123456789012",
    );
    expect(error).toContain("must be in the endpoint's own account and region");
  });

  it('refuses an imported machine object from another region', () => {
    const stack = testStack();
    const remote = sfn.StateMachine.fromStateMachineArn(
      stack,
      'Remote',
      'arn:aws:states:us-west-2:123456789012:stateMachine:remote-job',
    );
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint').addTool(tool('remote', { stateMachine: remote }));
    expect(synthError(endpoint)).toContain(
      "Tool 'remote': its state machine is in region us-west-2, the endpoint in region eu-west-1",
    );
  });

  it('binds nothing for a machine it refuses', () => {
    const stack = testStack();
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [tool('remote', { stateMachine: 'arn:aws:states:us-west-2:123456789012:stateMachine:remote-job' })],
    });
    expect(endpoint.statusRules).toHaveLength(0);
  });

  it('accepts any region and account when the stack’s are unresolved, granting only the backend’s executions there', () => {
    const stack = new Stack(testApp(), 'Agnostic');
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [tool('remote', { stateMachine: 'arn:aws:states:us-west-2:210987654321:stateMachine:remote-job' })],
    });
    expect(synthError(endpoint)).toBeUndefined();
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'states:DescribeExecution',
            Resource: 'arn:aws:states:us-west-2:210987654321:execution:remote-job:task-*',
          }),
        ]),
      },
    });
  });

  it('does not bound the number of tools by the MCP function’s environment: only the catalog’s key is in it', () => {
    const stack = testStack();
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint');
    // Random text does not compress: 60 of these descriptions are far past 4 KB in any form.
    for (let index = 0; index < 60; index++)
      endpoint.addTool(
        tool(`tool_${index}`, { description: randomText(600, index), stateMachine: `${MACHINE_ARN}${index}` }),
      );
    const template = Template.fromStack(stack).toJSON();
    expect(declaredCatalogTools(declaredCatalogResource(template['Resources']).create)).toHaveLength(60);
    const variables = template['Resources'][logicalId(stack, endpoint.mcpFunction)].Properties.Environment.Variables;
    expect(JSON.stringify(variables).length).toBeLessThan(1024);
  });

  it('fails when what is added to the MCP function’s environment may not fit its 4 KB', () => {
    const endpoint = new McpTaskEndpoint(testStack(), 'Endpoint', { tools: [tool('report')] });
    endpoint.mcpFunction.addEnvironment('LARGE_SETTING', randomText(4000, 1));
    expect(synthError(endpoint)).toMatch(/environment may not fit Lambda's limit \(up to \d+ of 4096 bytes\)/);
  });
});

describe('McpTaskEndpoint props validation (at construction)', () => {
  it('reports every conflicting or out-of-range prop in one error', () => {
    const stack = testStack();
    const build = () =>
      new McpTaskEndpoint(stack, 'Endpoint', {
        openEndpoint: true,
        machineClient: true,
        cognitoDomainPrefix: 'My_AWS_Prefix',
        throttlingRateLimit: -1,
        mcpFunctionReservedConcurrency: 1.5,
        maxActiveTasksPerOwner: 10_000,
        maxTaskCreationsPerMinute: 0,
        corsAllowOrigins: ['app.example.com'],
        resultWait: { isUnresolved: () => false, toMilliseconds: () => 10 * 60 * 1000 } as never,
        plainCallWait: Duration.minutes(11),
      });
    const message = errorOf(build);
    expect(message).toContain('McpTaskEndpoint props is invalid:');
    for (const problem of [
      'machineClient would have no effect',
      'cognitoDomainPrefix would have no effect',
      "cognitoDomainPrefix 'My_AWS_Prefix' must be",
      'throttlingRateLimit must be a positive integer',
      'mcpFunctionReservedConcurrency must be a positive integer',
      'maxActiveTasksPerOwner must be at most 5000',
      'maxTaskCreationsPerMinute must be a positive integer',
      "corsAllowOrigins entry 'app.example.com'",
      'resultWait must be between',
      'plainCallWait must be between 1 second and resultWait',
    ]) {
      expect(message).toContain(problem);
    }
  });

  it('passes the plain-call wait and the hand-off switch to the MCP function only when set', () => {
    const variablesOf = (props: ConstructorParameters<typeof McpTaskEndpoint>[2]) => {
      const stack = testStack();
      const endpoint = new McpTaskEndpoint(stack, 'Endpoint', props);
      const fn = Template.fromStack(stack).toJSON()['Resources'][logicalId(stack, endpoint.mcpFunction)];
      return fn.Properties.Environment.Variables as Record<string, unknown>;
    };
    const set = variablesOf({ plainCallWait: Duration.seconds(40), handOffPlainCalls: false });
    expect(set).toMatchObject({ [ENV.directCallTimeoutMs]: '40000', [ENV.handOffPlainCalls]: 'false' });
    const unset = variablesOf({});
    expect(unset).not.toHaveProperty(ENV.directCallTimeoutMs);
    expect(unset).not.toHaveProperty(ENV.handOffPlainCalls);
  });

  it('refuses an existing user pool together with props for a new one', () => {
    const stack = testStack();
    expect(
      () => new McpTaskEndpoint(stack, 'Endpoint', { existingUserPoolObj: {} as never, userPoolProps: {} }),
    ).toThrow('Pass existingUserPoolObj or userPoolProps, not both');
  });
});

describe('McpTaskEndpoint per-owner limits', () => {
  it('passes the limits to the MCP function, which reads them at start', () => {
    const stack = testStack();
    new McpTaskEndpoint(stack, 'Endpoint', {
      maxActiveTasksPerOwner: 250,
      maxTaskCreationsPerMinute: 600,
      tools: [tool('limited')],
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ MAX_ACTIVE_TASKS_PER_OWNER: '250', MAX_TASK_CREATIONS_PER_MINUTE: '600' }),
      },
    });
  });
});

describe('McpTaskEndpoint open endpoint', () => {
  it('warns at synth that anyone with the URL can use it', () => {
    const stack = testStack();
    new McpTaskEndpoint(stack, 'Endpoint', { openEndpoint: true, tools: [tool('open')] });
    Annotations.fromStack(stack).hasWarning(
      '/TestStack/Endpoint',
      Match.stringLikeRegexp('openEndpoint is true: the MCP endpoint has no authentication'),
    );
  });

  it('serves /mcp without an authorizer and gives the function its one owner', () => {
    const stack = testStack();
    new McpTaskEndpoint(stack, 'Endpoint', { openEndpoint: true, tools: [tool('open')] });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 0);
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    template.allResourcesProperties('AWS::ApiGateway::Method', { AuthorizationType: 'NONE' });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ OPEN_ENDPOINT_OWNER: 'anonymous' }) },
    });
  });

  it('does not warn when auth is on', () => {
    const stack = testStack();
    new McpTaskEndpoint(stack, 'Endpoint', { tools: [tool('closed')] });
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('openEndpoint'));
  });
});

/** Deterministic text that does not compress (base64 of a hash chain), so packing cannot make it small. */
function randomText(length: number, seed: number): string {
  let text = '';
  for (let block = 0; text.length < length; block++)
    text += createHash('sha256').update(`${seed}:${block}`).digest('base64');
  return text.slice(0, length);
}
