// The template lint step (scripts/lint-templates.ts) on a small cloud assembly made here: a machine whose definition
// is an asset file, and an EXPRESS-style wrapper whose definition is an Fn::Join around the other machine's ARN, as
// CDK writes them. cfn-lint reads neither as the template has it, so the step inlines both; an invalid state type in
// either then fails the step. The cases that run cfn-lint are skipped where it is not installed.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  assemblyTemplates,
  cfnLintVersion,
  inlineDefinitions,
  main,
  renderDefinitionString,
} from '../../../scripts/lint-templates.js';

const ASSET_KEY = 'abc123.json';
const scratch = mkdtempSync(join(tmpdir(), 'lint-templates-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A cloud assembly with one stack: Child (definition in an asset) and Wrapper (a joined definition string). */
function assembly(name: string, types: { child?: string; wrapper?: string } = {}): string {
  const dir = join(scratch, name);
  const write = (file: string, value: unknown) => writeFileSync(join(dir, file), JSON.stringify(value, null, 1));
  mkdirSync(dir);
  write('manifest.json', {
    version: '55.0.0',
    artifacts: {
      'Tools.assets': { type: 'cdk:asset-manifest', properties: { file: 'Tools.assets.json' } },
      Tools: {
        type: 'aws:cloudformation:stack',
        displayName: 'Tools',
        properties: { templateFile: 'Tools.template.json' },
      },
    },
  });
  write('Tools.assets.json', {
    version: '55.0.0',
    files: {
      abc123: {
        source: { path: `asset.${ASSET_KEY}`, packaging: 'file' },
        destinations: { current: { bucketName: 'assets', objectKey: ASSET_KEY } },
      },
    },
  });
  write(`asset.${ASSET_KEY}`, {
    StartAt: 'Greet',
    States: { Greet: { Type: types.child ?? 'Pass', Result: 'hello', Next: 'Done' }, Done: { Type: 'Succeed' } },
  });
  const role = { 'Fn::GetAtt': ['Role', 'Arn'] };
  write('Tools.template.json', {
    Resources: {
      Role: {
        Type: 'AWS::IAM::Role',
        Properties: {
          AssumeRolePolicyDocument: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Principal: { Service: 'states.amazonaws.com' }, Action: 'sts:AssumeRole' }],
          },
        },
      },
      Child: {
        Type: 'AWS::StepFunctions::StateMachine',
        Properties: {
          RoleArn: role,
          StateMachineType: 'EXPRESS',
          DefinitionS3Location: { Bucket: { 'Fn::Sub': 'assets-${AWS::AccountId}' }, Key: ASSET_KEY },
        },
      },
      Wrapper: {
        Type: 'AWS::StepFunctions::StateMachine',
        Properties: {
          RoleArn: role,
          DefinitionString: {
            'Fn::Join': [
              '',
              [
                `{"StartAt":"Run","States":{"Run":{"Type":"${types.wrapper ?? 'Task'}",` +
                  '"Resource":"arn:aws:states:::states:startExecution.sync:2","Parameters":{"StateMachineArn":"',
                { Ref: 'Child' },
                '","Input.$":"$"},"End":true}}}',
              ],
            ],
          },
        },
      },
    },
  });
  return dir;
}

describe('inlining', () => {
  it('puts the asset’s definition and the rendered wrapper into a copy, and leaves the assembly’s files alone', () => {
    const dir = assembly('inline');
    const before = readFileSync(join(dir, 'Tools.template.json'), 'utf8');
    const [tools] = assemblyTemplates(dir);
    const { template, machines, problems } = inlineDefinitions(tools!);
    expect({ machines, problems }).toEqual({ machines: 2, problems: [] });
    const child = template.Resources!['Child']!.Properties!;
    expect(child['DefinitionS3Location']).toBeUndefined();
    expect(child['Definition']).toMatchObject({ StartAt: 'Greet' });
    const wrapper = template.Resources!['Wrapper']!.Properties!;
    expect(wrapper['DefinitionString']).toBeUndefined();
    expect(wrapper['Definition']).toMatchObject({
      States: { Run: { Parameters: { StateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:Child' } } },
    });
    expect(readFileSync(join(dir, 'Tools.template.json'), 'utf8')).toBe(before);
    expect(tools!.template.Resources!['Child']!.Properties!['DefinitionS3Location']).toBeDefined();
  });

  it('renders references with placeholders: a function’s ARN, a pseudo parameter, a logical ID', () => {
    const resources = { Fn: { Type: 'AWS::Lambda::Function' } };
    expect(
      renderDefinitionString(
        { 'Fn::Join': ['|', [{ 'Fn::GetAtt': ['Fn', 'Arn'] }, { Ref: 'AWS::Region' }, { Ref: 'Fn' }]] },
        resources,
      ),
    ).toBe('arn:aws:lambda:us-east-1:123456789012:function:Fn|us-east-1|Fn');
    expect(() => renderDefinitionString({ 'Fn::Select': [0, ['a']] })).toThrow(/cannot render/);
  });

  it('reports a definition it cannot find, rather than lint the machine without it', () => {
    const [tools] = assemblyTemplates(assembly('missing'));
    const { problems } = inlineDefinitions({ ...tools!, assetFile: () => undefined });
    expect(problems).toEqual([
      expect.objectContaining({ rule: 'inline', path: 'Resources/Child/Properties/DefinitionS3Location' }),
    ]);
  });
});

describe('without cfn-lint', () => {
  it('says so in one line, with how to install it, and passes', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      expect(main(assembly('absent'), join(scratch, 'no-such-cfn-lint'))).toBe(0);
      expect(log.mock.calls).toEqual([[expect.stringMatching(/cfn-lint is not installed.*pip install cfn-lint/)]]);
    } finally {
      log.mockRestore();
    }
  });
});

const installed = cfnLintVersion() !== undefined;
describe.skipIf(!installed)('with cfn-lint (skipped where it is not installed: pip install cfn-lint)', () => {
  /** Runs the step on `dir`: its exit code and what it printed. */
  function run(dir: string): { code: number; out: string; errors: string } {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const code = main(dir);
      return { code, out: log.mock.calls.join('\n'), errors: error.mock.calls.join('\n') };
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  }

  it('passes a clean assembly, both machines checked', () => {
    const { code, out, errors } = run(assembly('clean'));
    expect(errors).toBe('');
    expect(out).toMatch(/1 template\(s\), 2 state machine definition\(s\) inlined, 0 finding\(s\)/);
    expect(code).toBe(0);
  });

  it('fails on an invalid state type in an asset’s definition and in the joined wrapper', () => {
    const { code, errors } = run(assembly('invalid', { child: 'Passs', wrapper: 'Tsak' }));
    expect(errors).toContain("Tools: E3601 'Passs' is not one of");
    expect(errors).toContain('at Resources/Child/Properties/Definition/States/Greet/Type');
    expect(errors).toContain("Tools: E3601 'Tsak' is not one of");
    expect(errors).toContain('at Resources/Wrapper/Properties/Definition/States/Run/Type');
    expect(code).toBe(1);
  });
});
