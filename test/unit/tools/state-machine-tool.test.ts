import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  definitionWithArns,
  toolDescription,
  type StateMachineTool,
} from '../../../lambda/tools/state-machine-tool.js';

const directory = mkdtempSync(join(tmpdir(), 'asl-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let files = 0;
function packageWith(asl: string, lambdaSteps: StateMachineTool['lambdaSteps']): StateMachineTool {
  const definitionPath = join(directory, `tool-${files++}.asl.json`);
  writeFileSync(definitionPath, asl);
  return {
    name: 'job',
    description: 'A job',
    inputSchema: { type: 'object' },
    taskSupport: 'required',
    definitionPath,
    lambdaSteps,
  };
}

describe('state machine tool package', () => {
  it('describes the tool as tools/list does, taskSupport included and packaging left out', () => {
    expect(toolDescription(packageWith('{}', {}))).toEqual({
      name: 'job',
      description: 'A job',
      inputSchema: { type: 'object' },
      taskSupport: 'required',
    });
  });

  it('binds each ${Placeholder} of the ASL to the ARN of its Lambda step', () => {
    const tool = packageWith('{"Resource":"${WorkFunctionArn}"}', {
      WorkFunctionArn: { functionName: 'work', entry: '/work.ts' },
    });
    expect(definitionWithArns(tool, (step) => `arn:${step.functionName}`)).toBe('{"Resource":"arn:work"}');
  });

  it('refuses a placeholder that names no Lambda step', () => {
    expect(() => definitionWithArns(packageWith('{"Resource":"${Missing}"}', {}), () => 'arn')).toThrow(
      /no Lambda step for \$\{Missing\}/,
    );
  });
});
