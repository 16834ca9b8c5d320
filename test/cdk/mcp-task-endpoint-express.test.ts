// McpTaskEndpoint with an EXPRESS state machine as a tool: the STANDARD wrapper it generates (its definition, timeout,
// logs and role), what the MCP function may do to each machine, the status rule on the wrapper, both machines in the
// declared tool catalog, and the EXPRESS machines synth refuses.
import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { describe, expect, it } from 'vitest';
import { expressWrapperDefinition } from '../../lambda/contract/express-wrapper.js';
import { EXPRESS_WRAPPER_TIMEOUT } from '../../lib/props/mcp-task-endpoint-defaults.js';
import { McpTaskEndpoint, type McpToolProps } from '../../lib/mcp-task-endpoint.js';
import {
  declaredCatalogResource,
  declaredCatalogTools,
  joined,
  logicalId,
  statementsOf,
  testStack,
  TEST_ENV,
  type TemplateResource,
} from './cdk-app.js';

/** Each tool's machines as the declared catalog names them: `[stateMachineArn, expressStateMachineArn?]`. */
function catalogMachines(template: Template): (string | undefined)[][] {
  return declaredCatalogTools(declaredCatalogResource(template.toJSON()['Resources']).create).map((each) => [
    each.stateMachineArn,
    each.expressStateMachineArn,
  ]);
}

const SCHEMA = { type: 'object', properties: {} } as const;
const ARN_PREFIX = `arn:aws:states:${TEST_ENV.region}:${TEST_ENV.account}`;

function tool(name: string, overrides: Partial<McpToolProps> & Pick<McpToolProps, 'stateMachine'>): McpToolProps {
  return { name, description: `Tool ${name}`, inputSchema: SCHEMA, ...overrides };
}

function expressMachine(stack: Stack, id = 'Keywords'): sfn.StateMachine {
  return new sfn.StateMachine(stack, id, {
    stateMachineType: sfn.StateMachineType.EXPRESS,
    definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, `${id}Pass`)),
  });
}

function synthError(stack: Stack): string | undefined {
  try {
    Template.fromStack(stack);
    return undefined;
  } catch (error) {
    return String(error);
  }
}

const executionsOf = (machineId: string, names: string) => ({
  'Fn::Join': ['', [`${ARN_PREFIX}:execution:`, { 'Fn::GetAtt': [machineId, 'Name'] }, `:${names}`]],
});

describe('McpTaskEndpoint with an EXPRESS state machine tool', () => {
  const stack = testStack();
  const express = expressMachine(stack);
  const endpoint = new McpTaskEndpoint(stack, 'Endpoint', { tools: [tool('keywords', { stateMachine: express })] });
  const template = Template.fromStack(stack);
  const wrapper = endpoint.expressWrappers['keywords']!;
  const ids = {
    express: logicalId(stack, express),
    wrapper: logicalId(stack, wrapper.stateMachine),
    wrapperRole: logicalId(stack, wrapper.stateMachine.role as never),
    mcp: logicalId(stack, endpoint.mcpFunction),
    statusSync: logicalId(stack, endpoint.statusSyncFunction),
    sweep: logicalId(stack, endpoint.expirySweep.function),
  };
  const resource = (id: string) => template.toJSON()['Resources'][id] as TemplateResource;
  /** The statements of a role's policies, actions sorted and resources as arrays (statementsOf, for a role). */
  const statementsOfRole = (roleId: string) =>
    Object.values(template.findResources('AWS::IAM::Policy') as Record<string, TemplateResource>)
      .filter((policy) => (policy.Properties['Roles'] as { Ref: string }[]).some((role) => role.Ref === roleId))
      .flatMap((policy) => policy.Properties['PolicyDocument'].Statement as { Action: unknown; Resource: unknown }[])
      .map((statement) => ({
        ...statement,
        Action: [statement.Action].flat().sort() as string[],
        Resource: [statement.Resource].flat(),
      }));

  it('generates a STANDARD wrapper running the EXPRESS machine with lambda/contract’s definition, logged and bounded', () => {
    const machine = resource(ids.wrapper).Properties;
    expect(machine['StateMachineType']).toBe('STANDARD');
    const shared = JSON.parse(expressWrapperDefinition(`\${${ids.express}}`)) as Record<string, unknown>;
    expect(JSON.parse(joined(machine['DefinitionString']))).toEqual({
      ...shared,
      TimeoutSeconds: shared['TimeoutSeconds'] ?? EXPRESS_WRAPPER_TIMEOUT.toSeconds(),
    });
    expect(machine['LoggingConfiguration']).toMatchObject({ Level: 'ALL', IncludeExecutionData: false });
    const logGroupId =
      machine['LoggingConfiguration'].Destinations[0].CloudWatchLogsLogGroup.LogGroupArn['Fn::GetAtt'][0];
    expect(resource(logGroupId).Properties['LogGroupName']['Fn::Join'][1][0]).toMatch(/^\/aws\/vendedlogs\/states\//);
  });

  it('lets the wrapper start the EXPRESS machine, describe and stop its task-* executions (named as its own), and use the managed .sync rule, nothing more', () => {
    const statements = statementsOfRole(ids.wrapperRole);
    expect(statements).toEqual(
      expect.arrayContaining([
        { Effect: 'Allow', Action: ['states:StartExecution'], Resource: [{ Ref: ids.express }] },
        {
          Effect: 'Allow',
          Action: ['states:DescribeExecution', 'states:StopExecution'],
          Resource: [executionsOf(ids.express, 'task-*')],
        },
        {
          Effect: 'Allow',
          Action: ['events:DescribeRule', 'events:PutRule', 'events:PutTargets'],
          Resource: [
            `arn:aws:events:${TEST_ENV.region}:${TEST_ENV.account}:rule/` +
              'StepFunctionsGetEventsForStepFunctionsExecutionRule',
          ],
        },
      ]),
    );
    // Besides CloudWatch Logs' log delivery (no resource-level permissions), nothing else.
    expect(
      statements.flatMap((statement) => statement.Action).filter((action) => !action.startsWith('logs:')),
    ).toHaveLength(6);
  });

  it('lets the MCP function run the EXPRESS machine synchronously and nothing else on it; tasks go to the wrapper', () => {
    const statements = statementsOf(template, ids.mcp);
    expect(statements).toEqual(
      expect.arrayContaining([
        { Effect: 'Allow', Action: ['states:StartSyncExecution'], Resource: [{ Ref: ids.express }] },
        { Effect: 'Allow', Action: ['states:StartExecution'], Resource: [{ Ref: ids.wrapper }] },
        {
          Effect: 'Allow',
          Action: ['states:DescribeExecution', 'states:StopExecution'],
          Resource: [executionsOf(ids.wrapper, 'task-*')],
        },
      ]),
    );
    const onExpress = statements.filter((statement) => JSON.stringify(statement.Resource).includes(`"${ids.express}"`));
    expect(onExpress).toEqual([
      { Effect: 'Allow', Action: ['states:StartSyncExecution'], Resource: [{ Ref: ids.express }] },
    ]);
  });

  it('lets status-sync describe and the sweep stop the wrapper’s task executions, as for a STANDARD tool', () => {
    expect(statementsOf(template, ids.statusSync)).toContainEqual({
      Effect: 'Allow',
      Action: ['states:DescribeExecution'],
      Resource: [executionsOf(ids.wrapper, 'task-*')],
    });
    expect(statementsOf(template, ids.sweep)).toContainEqual({
      Effect: 'Allow',
      Action: ['states:StopExecution'],
      Resource: [executionsOf(ids.wrapper, 'task-*')],
    });
  });

  it('leaves cdk-nag nothing to report on the wrapper, its role or its logs', () => {
    const violations = new AwsSolutionsChecks()
      .validateScope(stack)
      .violations.flatMap((violation) =>
        violation.violatingResources.map(
          (found) => `${violation.ruleName} ${(found as { constructPath?: string }).constructPath ?? ''}`,
        ),
      );
    expect(violations.filter((violation) => violation.includes('/ExpressWrapper-'))).toEqual([]);
  });

  it('pushes the wrapper’s status changes (the EXPRESS machine has none)', () => {
    const rules = Object.values(template.findResources('AWS::Events::Rule') as Record<string, TemplateResource>)
      .map((rule) => rule.Properties['EventPattern'])
      .filter((pattern) => pattern !== undefined);
    expect(rules).toEqual([
      expect.objectContaining({ detail: expect.objectContaining({ stateMachineArn: [{ Ref: ids.wrapper }] }) }),
    ]);
  });

  it('names the wrapper as the machine of the tool’s tasks and the EXPRESS machine beside it in the catalog', () => {
    expect(catalogMachines(template)).toEqual([[`\${${ids.wrapper}}`, `\${${ids.express}}`]]);
  });
});

describe('McpTaskEndpoint EXPRESS forms and refusals', () => {
  it('wraps an EXPRESS machine registered by ARN with stateMachineType, and keeps its ARN in the catalog', () => {
    const stack = testStack();
    const arn = `${ARN_PREFIX}:stateMachine:keywords`;
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [tool('keywords', { stateMachine: arn, stateMachineType: sfn.StateMachineType.EXPRESS })],
    });
    const template = Template.fromStack(stack);
    const mcp = logicalId(stack, endpoint.mcpFunction);
    const wrapper = logicalId(stack, endpoint.expressWrappers['keywords']!.stateMachine);
    expect(statementsOf(template, mcp)).toContainEqual({
      Effect: 'Allow',
      Action: ['states:StartSyncExecution'],
      Resource: [arn],
    });
    expect(catalogMachines(template)).toEqual([[`\${${wrapper}}`, arn]]);
  });

  it('adds nothing for a STANDARD tool: no wrapper, no StartSyncExecution, its own machine in the catalog', () => {
    const stack = testStack();
    const machine = new sfn.StateMachine(stack, 'Report', {
      definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'ReportPass')),
    });
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', { tools: [tool('report', { stateMachine: machine })] });
    const template = Template.fromStack(stack);
    expect(endpoint.expressWrappers).toEqual({});
    expect(Object.keys(template.findResources('AWS::StepFunctions::StateMachine'))).toEqual([
      logicalId(stack, machine),
    ]);
    expect(JSON.stringify(template.toJSON())).not.toContain('states:StartSyncExecution');
    expect(catalogMachines(template)).toEqual([[`\${${logicalId(stack, machine)}}`, undefined]]);
  });

  it('takes a machine registered by ARN as STANDARD unless told otherwise', () => {
    const stack = testStack();
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
      tools: [tool('report', { stateMachine: `${ARN_PREFIX}:stateMachine:report` })],
    });
    expect(endpoint.expressWrappers).toEqual({});
  });

  it('refuses an EXPRESS machine that asks for input, and a stateMachineType that contradicts the machine, in one error', () => {
    const stack = testStack();
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint');
    const asking = new sfn.StateMachine(stack, 'Asking', {
      stateMachineType: sfn.StateMachineType.EXPRESS,
      definitionBody: sfn.DefinitionBody.fromChainable(
        endpoint.askStep(stack, 'Ask', {
          message: 'Go on?',
          requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } } },
          timeout: Duration.minutes(5),
        }),
      ),
    });
    endpoint
      .addTool(tool('asking', { stateMachine: asking }))
      .addTool(
        tool('mistyped', { stateMachine: expressMachine(stack), stateMachineType: sfn.StateMachineType.STANDARD }),
      );
    const error = synthError(stack)!;
    expect(error).toContain(
      "Tool 'asking': its EXPRESS state machine waits for a task token (endpoint.askStep, or another " +
        '.waitForTaskToken state), and an EXPRESS machine cannot wait for one; make the machine STANDARD',
    );
    expect(error).toContain("Tool 'mistyped': stateMachineType is STANDARD, but its state machine is EXPRESS");
    expect(endpoint.expressWrappers).toEqual({});
  });
});
