// What the conformance fixture tools are made of: the empty input schema most of them take, and the wiring of a
// fixture whose state machine has one Lambda step of its own (a module in steps/).
import type { JsonSchema } from '../contract/tool-definition.js';
import { pathsFrom, type StateMachineTool } from '../tools/state-machine-tool.js';

const here = pathsFrom(import.meta.url);

/** The input schema of a fixture that takes no arguments. */
export const NO_ARGUMENTS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/** A fixture of one Lambda step: `${<placeholder>FunctionArn}` in its ASL, steps/<stepModule>.ts as the step. */
export function oneStep(placeholder: string, stepModule: string): StateMachineTool['lambdaSteps'] {
  return {
    [`${placeholder}FunctionArn`]: {
      functionName: `conformance-${stepModule}`,
      entry: here(`./steps/${stepModule}.ts`),
    },
  };
}
