// The tool catalog as the CDK construct packs it into the MCP function's environment and the function unpacks it:
// the tools without their state machines, Brotli-compressed, and the state machine ARNs beside them in catalog order
// (only CloudFormation knows those, at deploy time). An EXPRESS tool's entry is its wrapper's ARN, `|`, and its EXPRESS
// machine's ARN; a durable tool's is its function's qualified ARN.
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { MCP_HTTP_ENV } from './environment-names.js';
import { engineOfWorkflowArn, WorkflowEngine } from './workflow-engine.js';
import type { ToolDefinition, ToolDescription } from './tool-definition.js';

/** A tool as it is packed: everything but its workflow, which only CloudFormation knows. */
export type { ToolDescription } from './tool-definition.js';

/** Separates an EXPRESS tool's wrapper from its EXPRESS machine in one entry; no ARN contains it. */
export const EXPRESS_MACHINE_SEPARATOR = '|';

/** One tool's entry in {@link MCP_HTTP_ENV.toolStateMachineArns}: its machine, then its EXPRESS machine if any. */
export function stateMachineEntry(stateMachineArn: string, expressStateMachineArn?: string): string {
  return expressStateMachineArn === undefined
    ? stateMachineArn
    : `${stateMachineArn}${EXPRESS_MACHINE_SEPARATOR}${expressStateMachineArn}`;
}

/** The value of {@link MCP_HTTP_ENV.packedToolCatalog}: base64 of the Brotli-compressed JSON of the tools. */
export function packToolCatalog(tools: readonly ToolDescription[]): string {
  const json = Buffer.from(JSON.stringify(tools), 'utf8');
  return brotliCompressSync(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
  }).toString('base64');
}

/**
 * The tools back from the packed catalog and the comma-separated entries of their state machines (see
 * {@link stateMachineEntry}), in catalog order.
 */
export function unpackToolCatalog(packed: string, stateMachineArns: string): ToolDefinition[] {
  const tools = JSON.parse(brotliDecompressSync(Buffer.from(packed, 'base64')).toString('utf8')) as ToolDescription[];
  const arns = stateMachineArns === '' ? [] : stateMachineArns.split(',');
  if (arns.length !== tools.length)
    throw new Error(`${MCP_HTTP_ENV.toolStateMachineArns} lists ${arns.length} ARNs for ${tools.length} tools`);
  return tools.map((tool, index) => {
    const [stateMachineArn, expressStateMachineArn] = arns[index]!.split(EXPRESS_MACHINE_SEPARATOR);
    // A durable tool's entry is its function's qualified ARN, which no state machine's ARN can be taken for.
    if (engineOfWorkflowArn(stateMachineArn!) === WorkflowEngine.DurableFunctions)
      return { ...tool, durableFunctionArn: stateMachineArn! };
    return {
      ...tool,
      stateMachineArn: stateMachineArn!,
      ...(expressStateMachineArn !== undefined ? { expressStateMachineArn } : {}),
    };
  });
}
