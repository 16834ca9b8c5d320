// The declared tool catalog (the tools registered in code, addTool) as one item of the task table. The CDK construct
// writes it at deploy time (a custom resource's PutItem, CloudFormation filling in the state machine ARNs) under a key
// versioned by the catalog's content, and hands the MCP function that key; the function reads the item once per
// instance. So the number of tools is bounded by DynamoDB's 400 KB item, not by Lambda's 4 KB environment.
// The item: the tools without their state machines, Brotli-compressed (it travels in the template as the custom
// resource's properties), and the workflow entries beside them in catalog order. An EXPRESS tool's entry is its
// wrapper's ARN, `|`, and its EXPRESS machine's ARN; a durable tool's is its function's qualified ARN.
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { engineOfWorkflowArn, WorkflowEngine } from './workflow-engine.js';
import type { ToolDefinition, ToolDescription } from './tool-definition.js';

/** A tool as it is packed: everything but its workflow, which only CloudFormation knows. */
export type { ToolDescription } from './tool-definition.js';

/** Every declared catalog's key starts so: apart from task keys (hex) and the discovered catalog's. */
export const DECLARED_CATALOG_KEY_PREFIX = 'catalog#declared#';

/** The key of the declared catalog of this `version` (a hash of its content: a new catalog is a new item). */
export function declaredCatalogKey(version: string): string {
  return `${DECLARED_CATALOG_KEY_PREFIX}${version}`;
}

/** The item's attributes beside the partition key, both strings. */
export const DECLARED_CATALOG_ATTRIBUTE = {
  /** The packed tool descriptions: see {@link packToolDescriptions}. */
  tools: 'tools',
  /**
   * The comma-separated entries of the tools' workflows (see {@link stateMachineEntry}; a durable tool's is its
   * function's qualified ARN), in catalog order.
   */
  stateMachines: 'stateMachines',
} as const;

/** Separates an EXPRESS tool's wrapper from its EXPRESS machine in one entry; no ARN contains it. */
export const EXPRESS_MACHINE_SEPARATOR = '|';

/** One tool's state machine entry: its machine, then its EXPRESS machine if any. */
export function stateMachineEntry(stateMachineArn: string, expressStateMachineArn?: string): string {
  return expressStateMachineArn === undefined
    ? stateMachineArn
    : `${stateMachineArn}${EXPRESS_MACHINE_SEPARATOR}${expressStateMachineArn}`;
}

/** Base64 of the Brotli-compressed JSON of the tools. */
export function packToolDescriptions(tools: readonly ToolDescription[]): string {
  const json = Buffer.from(JSON.stringify(tools), 'utf8');
  return brotliCompressSync(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
  }).toString('base64');
}

/** The item's attributes for tools whose workflows are known (the local stack, tests). */
export function declaredCatalogAttributes(tools: readonly ToolDefinition[]): Record<string, string> {
  return {
    [DECLARED_CATALOG_ATTRIBUTE.tools]: packToolDescriptions(
      tools.map(
        ({ stateMachineArn: _machine, expressStateMachineArn: _express, durableFunctionArn: _function, ...rest }) =>
          rest,
      ),
    ),
    [DECLARED_CATALOG_ATTRIBUTE.stateMachines]: tools
      .map((tool) =>
        tool.durableFunctionArn !== undefined
          ? tool.durableFunctionArn
          : stateMachineEntry(tool.stateMachineArn, tool.expressStateMachineArn),
      )
      .join(','),
  };
}

/** The tools back from the item's two attributes, joined by position. */
export function unpackToolCatalog(packed: string, stateMachines: string): ToolDefinition[] {
  const tools = JSON.parse(brotliDecompressSync(Buffer.from(packed, 'base64')).toString('utf8')) as ToolDescription[];
  const entries = stateMachines === '' ? [] : stateMachines.split(',');
  if (entries.length !== tools.length)
    throw new Error(`The declared tool catalog lists ${entries.length} state machines for ${tools.length} tools`);
  return tools.map((tool, index) => {
    const [stateMachineArn, expressStateMachineArn] = entries[index]!.split(EXPRESS_MACHINE_SEPARATOR);
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
