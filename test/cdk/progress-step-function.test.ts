// endpoint.progressStep: a Task state for state machines built in CDK that invokes the endpoint's progress function
// with the execution's ARN and the report, and passes its input through.
import { Template } from 'aws-cdk-lib/assertions';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { describe, expect, it } from 'vitest';
import { McpTaskEndpoint } from '../../lib/mcp-task-endpoint.js';
import { testStack } from './cdk-app.js';

describe('McpTaskEndpoint.progressStep', () => {
  it('invokes the progress function with $$.Execution.Id and the report, discarding its result, and lets the machine invoke it', () => {
    const stack = testStack();
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', { openEndpoint: true });
    const step = endpoint.progressStep(stack, 'ReportAnalysed', {
      message: 'Analysed {progress} of {total}',
      increment: 1,
      total: sfn.JsonPath.numberAt('$.count'),
    });
    const machine = new sfn.StateMachine(stack, 'Machine', { definitionBody: sfn.DefinitionBody.fromChainable(step) });
    endpoint.addTool({
      name: 'with_progress',
      description: 'Reports progress.',
      inputSchema: { type: 'object' },
      stateMachine: machine,
    });
    const template = Template.fromStack(stack).toJSON() as {
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    };
    const definitionString = Object.values(template.Resources).find(
      (resource) => resource.Type === 'AWS::StepFunctions::StateMachine',
    )!.Properties['DefinitionString'];
    // The definition is a Fn::Join around the function's ARN; with the ARN left out it is plain ASL.
    const parts = (definitionString as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    const definition = JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'arn')).join('')) as {
      States: Record<string, Record<string, unknown>>;
    };
    expect(definition.States['ReportAnalysed']).toMatchObject({
      Type: 'Task',
      ResultPath: null,
      Parameters: {
        'execution.$': '$$.Execution.Id',
        message: 'Analysed {progress} of {total}',
        increment: 1,
        'total.$': '$.count',
      },
    });
    const progressFunctionId = stack.getLogicalId(endpoint.progressFunction.node.defaultChild as never);
    const machinePolicy = Object.values(template.Resources).find(
      (resource) =>
        resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties).includes('lambda:InvokeFunction'),
    );
    expect(JSON.stringify(machinePolicy)).toContain(progressFunctionId);
  });
});
