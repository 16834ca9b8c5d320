// The progress step as a tool's ASL names it: `${ReportProgressFunctionArn}` in a Task state. Every tool
// shares the one function: the local stack binds it to its task table, the CDK construct deploys it once per endpoint.
import type { LambdaStep } from '../tools/state-machine-tool.js';
import { pathsFrom } from '../tools/state-machine-tool.js';

/** The ASL placeholder of the progress step's function ARN. */
export const PROGRESS_STEP_PLACEHOLDER = 'ReportProgressFunctionArn';

export const PROGRESS_LAMBDA_STEP: LambdaStep = {
  functionName: 'mcp-tasks-report-progress',
  entry: pathsFrom(import.meta.url)('../handlers/report-progress.ts'),
};

/** Whether `step` is the shared progress step rather than a tool's own function. */
export function isProgressStep(step: LambdaStep): boolean {
  return step.functionName === PROGRESS_LAMBDA_STEP.functionName;
}
