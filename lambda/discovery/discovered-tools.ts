// The tools a team's own state machines become, from what the account says of them: each selected machine's name,
// tags, definition and registry schema. Pure: the catalog refresher reads the account and stores what this returns,
// so every rule here (names, descriptions, schemas, task support, clashes) is tested without AWS.
import { DISCOVERY_TAGS, isSelected, type DiscoverySelection } from '../contract/discovery-selection.js';
import {
  TASK_SUPPORT_VALUES,
  toolDefinitionProblems,
  type JsonSchema,
  type TaskSupport,
  type ToolDefinition,
} from '../contract/tool-definition.js';
import { inputSchemaFromRegistry, RegistrySchemaError, type RegistrySchemaType } from './registry-schema.js';

/** What the account says of one state machine. */
export interface DiscoveredMachine {
  readonly name: string;
  readonly arn: string;
  readonly type: 'STANDARD' | 'EXPRESS';
  readonly tags: Readonly<Record<string, string>>;
  /** The ASL (JSON text), for its top-level `Comment`. */
  readonly definition?: string;
  /** The registry schema the schema-ARN tag names, as DescribeSchema answered it (its latest version). */
  readonly registrySchema?: { readonly content: string; readonly type: RegistrySchemaType; readonly version?: string };
}

/** A selected machine that is not a tool, and why: so the refresher can log it, once per reason. */
export interface SkippedMachine {
  readonly arn: string;
  readonly reason: string;
}

export interface DiscoveredCatalog {
  readonly tools: ToolDefinition[];
  readonly skipped: SkippedMachine[];
}

/** Any object, when the machine says nothing of its input: the workflow is the judge of what it gets. */
export const OPEN_INPUT_SCHEMA: JsonSchema = { type: 'object' };

const MAX_TOOL_NAME_LENGTH = 128;

/** The MCP name of a machine: its name with every character MCP names do not allow made `_`, at most 128 long. */
export function toolNameOf(machineName: string): string {
  return machineName.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, MAX_TOOL_NAME_LENGTH) || '_';
}

/**
 * The catalog of the machines `selection` selects, in ARN order (so a clash resolves the same way on every refresh):
 * a machine whose tool name another machine, or one of `reservedNames` (the tools written in code), already has is
 * skipped, as is one whose tool would be invalid. Never two tools with one name.
 */
export function discoveredCatalog(
  machines: readonly DiscoveredMachine[],
  selection: DiscoverySelection,
  reservedNames: ReadonlySet<string> = new Set(),
): DiscoveredCatalog {
  const tools: ToolDefinition[] = [];
  const skipped: SkippedMachine[] = [];
  const taken = new Set(reservedNames);
  const byArn = new Map<string, DiscoveredMachine>();
  for (const machine of machines) byArn.set(machine.arn, machine);
  for (const machine of [...byArn.values()].sort(byArnText)) {
    if (!isSelected(selection, machine)) continue;
    const tool = toolOf(machine, selection);
    const reason = 'reason' in tool ? tool.reason : catalogProblem(tool, taken, reservedNames);
    if ('reason' in tool || reason !== undefined) {
      skipped.push({ arn: machine.arn, reason: reason! });
      continue;
    }
    taken.add(tool.name);
    tools.push(tool);
  }
  return { tools, skipped };
}

/** By the ARN's characters, not the locale's collation: the same order on every machine and every run. */
function byArnText(a: DiscoveredMachine, b: DiscoveredMachine): number {
  return a.arn < b.arn ? -1 : a.arn > b.arn ? 1 : 0;
}

/** Why a well-formed tool still cannot join the catalog: an invalid definition, or a name already taken. */
function catalogProblem(
  tool: ToolDefinition,
  taken: ReadonlySet<string>,
  reservedNames: ReadonlySet<string>,
): string | undefined {
  const problems = toolDefinitionProblems([tool]);
  if (reservedNames.has(tool.name)) problems.push(`its tool name '${tool.name}' is a tool written in code`);
  else if (taken.has(tool.name)) problems.push(`its tool name '${tool.name}' is taken by another machine`);
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/** The tool one selected machine becomes, or why it cannot be one. */
export function toolOf(machine: DiscoveredMachine, selection: DiscoverySelection): ToolDefinition | { reason: string } {
  const schema = inputSchemaOf(machine, selection);
  if ('reason' in schema) return schema;
  const taskSupport = taskSupportOf(machine);
  if (typeof taskSupport === 'object') return taskSupport;
  return {
    name: toolNameOf(machine.name),
    description: descriptionOf(machine),
    inputSchema: schema.schema,
    stateMachineArn: machine.arn,
    // An EXPRESS machine runs as a plain call (StartSyncExecution): a task needs the STANDARD wrapper that only a tool
    // written in code gets (the construct generates it at deployment).
    ...(machine.type === 'EXPRESS' ? { expressStateMachineArn: machine.arn } : {}),
    taskSupport,
  };
}

/** The description tag, else the definition's top-level `Comment`, else a plain sentence naming the machine. */
export function descriptionOf(machine: DiscoveredMachine): string {
  const tagged = machine.tags[DISCOVERY_TAGS.description]?.trim();
  if (tagged) return tagged;
  const comment = commentOf(machine.definition);
  if (comment) return comment;
  return `Runs the AWS Step Functions state machine ${machine.name}.`;
}

function commentOf(definition: string | undefined): string | undefined {
  if (definition === undefined) return undefined;
  try {
    const comment = (JSON.parse(definition) as { Comment?: unknown }).Comment;
    return typeof comment === 'string' && comment.trim() !== '' ? comment.trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The registry schema the schema-ARN tag names, else an inline JSON Schema tag, else an open object. A tag that names
 * a schema the refresher could not read, or a schema that cannot be an input schema, skips the machine rather than
 * let it take arguments its schema would refuse.
 */
export function inputSchemaOf(
  machine: DiscoveredMachine,
  selection: DiscoverySelection,
): { schema: JsonSchema } | { reason: string } {
  const arnTag = selection.inputSchemaArnTagKey ?? DISCOVERY_TAGS.inputSchemaArn;
  if (machine.tags[arnTag] !== undefined) {
    if (machine.registrySchema === undefined)
      return { reason: `the registry schema its tag ${arnTag} names could not be read` };
    try {
      return { schema: inputSchemaFromRegistry(machine.registrySchema.content, machine.registrySchema.type) };
    } catch (error) {
      if (error instanceof RegistrySchemaError) return { reason: error.message };
      throw error;
    }
  }
  const inline = machine.tags[DISCOVERY_TAGS.inputSchema];
  if (inline === undefined) return { schema: OPEN_INPUT_SCHEMA };
  try {
    const schema = JSON.parse(inline) as JsonSchema;
    if (typeof schema === 'object' && schema !== null && schema.type === 'object') return { schema };
  } catch {
    // Reported below with the tag's name.
  }
  return { reason: `its tag ${DISCOVERY_TAGS.inputSchema} is not a JSON Schema of an object` };
}

/** STANDARD: the task-support tag, else `optional`. EXPRESS: `forbidden`, whatever the tag says. */
function taskSupportOf(machine: DiscoveredMachine): TaskSupport | { reason: string } {
  if (machine.type === 'EXPRESS') return 'forbidden';
  const tagged = machine.tags[DISCOVERY_TAGS.taskSupport];
  if (tagged === undefined) return 'optional';
  if ((TASK_SUPPORT_VALUES as readonly string[]).includes(tagged)) return tagged as TaskSupport;
  return { reason: `its tag ${DISCOVERY_TAGS.taskSupport} must be one of ${TASK_SUPPORT_VALUES.join(', ')}` };
}
