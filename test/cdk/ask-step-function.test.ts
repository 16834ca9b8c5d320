// endpoint.askStep in a team's own state machine built with CDK's Step Functions constructs: the waitForTaskToken
// invoke of the endpoint's ask function with the Payload the ask function reads, the IAM that lets the machine ask
// and the MCP function answer (and the ask function do nothing more), and props refused at synth.
import { Duration, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { beforeAll, describe, expect, it } from 'vitest';
import { McpTaskEndpoint } from '../../lib/mcp-task-endpoint.js';
import { logicalId, statementsOf, testStack, type TemplateResource } from './cdk-app.js';

const REQUESTED_SCHEMA = {
  type: 'object',
  properties: { approve: { type: 'boolean', title: 'Approve the refund' } },
  required: ['approve'],
};

let stack: Stack;
let endpoint: McpTaskEndpoint;
let template: Template;
let ids: { table: string; askFunction: string; mcpFunction: string; machine: string };

beforeAll(() => {
  stack = testStack();
  endpoint = new McpTaskEndpoint(stack, 'Endpoint', { openEndpoint: true });
  const approve = endpoint.askStep(stack, 'Approve', {
    message: sfn.JsonPath.format('Refund order {}?', sfn.JsonPath.stringAt('$.orderId')),
    requestedSchema: REQUESTED_SCHEMA,
    timeout: Duration.minutes(15),
    resultPath: '$.approval',
  });
  const confirm = endpoint.askStep(stack, 'Confirm', {
    message: 'Sure?',
    requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } } },
    timeout: Duration.hours(1),
  });
  const decided = new sfn.Choice(stack, 'Approved?')
    .when(sfn.Condition.stringEquals('$.approval.action', 'accept'), confirm.next(new sfn.Succeed(stack, 'Done')))
    .otherwise(new sfn.Fail(stack, 'Declined'));
  const machine = new sfn.StateMachine(stack, 'Machine', {
    definitionBody: sfn.DefinitionBody.fromChainable(approve.next(decided)),
  });
  endpoint.addTool({
    name: 'approve_refund',
    description: 'Asks a person to approve a refund.',
    inputSchema: { type: 'object' },
    stateMachine: machine,
  });
  template = Template.fromStack(stack);
  ids = {
    table: logicalId(stack, endpoint.table),
    askFunction: logicalId(stack, endpoint.askHandler.function),
    mcpFunction: logicalId(stack, endpoint.mcpHandler.function),
    machine: logicalId(stack, machine),
  };
});

/** The machine's definition: a Fn::Join around ARNs; with each ARN as 'arn' it is plain ASL. */
function definition(): { parts: unknown[]; states: Record<string, Record<string, unknown>> } {
  const resources = template.toJSON()['Resources'] as Record<string, TemplateResource>;
  const parts = (resources[ids.machine]!.Properties['DefinitionString'] as { 'Fn::Join': [string, unknown[]] })[
    'Fn::Join'
  ][1];
  const asl = JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'arn')).join('')) as {
    States: Record<string, Record<string, unknown>>;
  };
  return { parts, states: asl.States };
}

describe('McpTaskEndpoint.askStep', () => {
  it('invokes the ask function with the task token, the execution, the form and its timeout, and waits for the token', () => {
    const { parts, states } = definition();
    expect(states['Approve']).toMatchObject({
      Type: 'Task',
      Resource: expect.stringMatching(/:states:::lambda:invoke\.waitForTaskToken$/),
      TimeoutSeconds: 900,
      ResultPath: '$.approval',
      Next: 'Approved?',
      Parameters: {
        FunctionName: 'arn',
        Payload: {
          'taskToken.$': '$$.Task.Token',
          'executionArn.$': '$$.Execution.Id',
          timeoutSeconds: 900,
          request: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              'message.$': "States.Format('Refund order {}?', $.orderId)",
              requestedSchema: REQUESTED_SCHEMA,
            },
          },
        },
      },
    });
    // Nobody sends heartbeats while a person thinks: only the timeout bounds the wait.
    expect(states['Approve']).not.toHaveProperty('HeartbeatSeconds');
    // The answer lands at $.answer unless the step says otherwise.
    expect(states['Confirm']).toMatchObject({
      TimeoutSeconds: 3600,
      ResultPath: '$.answer',
      Parameters: { Payload: { timeoutSeconds: 3600, request: { params: { message: 'Sure?' } } } },
    });
    // Both steps invoke the endpoint's one ask function.
    expect(parts).toContainEqual({ 'Fn::GetAtt': [ids.askFunction, 'Arn'] });
  });

  it("lets the team's machine invoke the ask function", () => {
    const resources = template.toJSON()['Resources'] as Record<string, TemplateResource>;
    const roleId = (resources[ids.machine]!.Properties['RoleArn'] as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    const invokes = Object.values(resources)
      .filter(
        (candidate) =>
          candidate.Type === 'AWS::IAM::Policy' &&
          (candidate.Properties['Roles'] as { Ref: string }[]).some((role) => role.Ref === roleId),
      )
      .flatMap((policy) => policy.Properties['PolicyDocument'].Statement as { Action: unknown; Resource: unknown }[])
      .filter((statement) => [statement.Action].flat().includes('lambda:InvokeFunction'));
    expect(invokes).toHaveLength(1);
    expect([invokes[0]!.Resource].flat()).toContainEqual({ 'Fn::GetAtt': [ids.askFunction, 'Arn'] });
  });

  it('lets the ask function update task items and write its logs, nothing more', () => {
    expect(statementsOf(template, ids.askFunction)).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: [{ 'Fn::GetAtt': [expect.stringMatching(/^EndpointAskHandlerLogGroup/), 'Arn'] }],
      },
      { Effect: 'Allow', Action: ['dynamodb:UpdateItem'], Resource: [{ 'Fn::GetAtt': [ids.table, 'Arn'] }] },
    ]);
  });

  it('lets the MCP function resume a waiting execution with an answer or a client error', () => {
    expect(statementsOf(template, ids.mcpFunction)).toContainEqual({
      Effect: 'Allow',
      Action: ['states:SendTaskFailure', 'states:SendTaskSuccess'],
      Resource: ['*'],
    });
  });
});

describe('McpTaskEndpoint.askStep props', () => {
  const ask = (props: Partial<Parameters<McpTaskEndpoint['askStep']>[2]>) => () => {
    const own = testStack();
    new McpTaskEndpoint(own, 'Endpoint', { openEndpoint: true }).askStep(own, 'Ask', {
      message: 'Approve?',
      requestedSchema: REQUESTED_SCHEMA,
      timeout: Duration.minutes(5),
      ...props,
    });
  };

  it('takes a timeout of whole seconds from 1 second to 365 days', () => {
    expect(ask({ timeout: Duration.seconds(1) })).not.toThrow();
    expect(ask({ timeout: Duration.days(365) })).not.toThrow();
  });

  it.each([
    ['zero', Duration.seconds(0), '0 seconds'],
    ['under a second', Duration.millis(500), '500 millis'],
    ['a fraction of a second over', Duration.millis(1500), '1 second 500 millis'],
    ['over a year', Duration.days(366), '366 days'],
  ])('refuses a timeout of %s, naming the step', (_, timeout, shown) => {
    expect(ask({ timeout })).toThrow(
      `Ask step Ask is invalid:\n- timeout must be whole seconds from 1 second to 365 days, got ${shown}`,
    );
  });

  it('refuses a form without a requestedSchema object, with every problem at once', () => {
    expect(ask({ requestedSchema: null as never, timeout: Duration.seconds(0) })).toThrow(
      'Ask step Ask is invalid:\n' +
        '- elicitation/create needs params.requestedSchema (an object schema)\n' +
        '- timeout must be whole seconds from 1 second to 365 days, got 0 seconds',
    );
  });
});
