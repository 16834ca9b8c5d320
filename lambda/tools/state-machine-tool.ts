// A tool as this repository ships it: what tools/list says about it, the ASL file of its state machine, and the
// Lambda step handlers that ASL calls. The local stack registers such packages on its emulator; the CDK app deploys
// them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ToolDescription } from '../contract/tool-definition.js';

export interface LambdaStep {
  /**
   * Function name (local Lambda ARNs and CDK construct IDs derive from it); unique across every catalog run together.
   */
  readonly functionName: string;
  /** Absolute path of the handler module; it exports `handler`. */
  readonly entry: string;
}

/** A tool's description (everything a ToolDefinition has but the machine) plus the source its machine is made from. */
export interface StateMachineTool extends ToolDescription {
  /**
   * The machine's type. An EXPRESS tool's plain calls run it with StartSyncExecution, and its tasks run a STANDARD
   * wrapper around it (contract/express-wrapper.ts). @default 'STANDARD'
   */
  readonly type?: 'STANDARD' | 'EXPRESS';
  /** Absolute path of the ASL definition. */
  readonly definitionPath: string;
  /** ASL `${Placeholder}` -> the Lambda step whose ARN replaces it. */
  readonly lambdaSteps: Readonly<Record<string, LambdaStep>>;
}

/** Resolves paths relative to a catalog module: `const here = pathsFrom(import.meta.url)`. */
export function pathsFrom(moduleUrl: string): (relative: string) => string {
  return (relative) => fileURLToPath(new URL(relative, moduleUrl));
}

/** What the tool tells clients, taskSupport included: the ToolDefinition once its machine's ARN is added. */
export function toolDescription(tool: StateMachineTool): ToolDescription {
  const { type: _type, definitionPath: _definition, lambdaSteps: _steps, ...description } = tool;
  return description;
}

/** The tool's ASL with each `${Placeholder}` replaced by the ARN `arnOf` gives for its Lambda step. */
export function definitionWithArns(tool: StateMachineTool, arnOf: (step: LambdaStep) => string): string {
  return readFileSync(tool.definitionPath, 'utf8').replace(/\$\{(\w+)\}/g, (placeholder, name: string) => {
    const step = tool.lambdaSteps[name];
    if (step === undefined) throw new Error(`${tool.definitionPath}: no Lambda step for ${placeholder}`);
    return arnOf(step);
  });
}
