// Which of an account's state machines become tools without code, and the tags that shape each tool: the selection
// the CDK construct is given (and turns into IAM) and the catalog refresher applies, written once. Machines are
// selected as the awslabs Step Functions tool MCP server selects them, so its users can move over: by name first (a
// prefix and/or a list of names), then, when a tag is given, by that tag's value.

export interface DiscoverySelection {
  /** Machines whose name starts with this. With {@link names}, a machine named either way is selected. */
  readonly namePrefix?: string;
  /** Machines with exactly these names. */
  readonly names?: readonly string[];
  /** Of the machines the names select (all of them, when neither names nor a prefix is given), those with this tag. */
  readonly tag?: { readonly key: string; readonly value: string };
  /**
   * The tag whose value is the ARN of the machine's input schema in the EventBridge Schema Registry.
   * @default DISCOVERY_TAGS.inputSchemaArn
   */
  readonly inputSchemaArnTagKey?: string;
}

/** The tags a machine may carry to shape its tool; each is optional. */
export const DISCOVERY_TAGS = {
  /** The tool's description, in place of the definition's top-level `Comment`. */
  description: 'mcp:description',
  /** A JSON Schema of the tool's input, inline (a tag value holds at most 256 characters). */
  inputSchema: 'mcp:input-schema',
  /** The ARN of the input schema in the EventBridge Schema Registry (the default schema-ARN tag). */
  inputSchemaArn: 'mcp:input-schema-arn',
  /** `forbidden`, `optional` or `required`: how a STANDARD machine's tool may run as a task. */
  taskSupport: 'mcp:task-support',
} as const;

/** What a selection needs to know of a machine. */
export interface SelectableMachine {
  readonly name: string;
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * Whether the name alone lets `selection` take a machine (its prefix or list names it, or it selects by tag only): a
 * machine it does not let through needs no further read.
 */
export function nameIsSelected(selection: DiscoverySelection, name: string): boolean {
  if (selection.namePrefix === undefined && selection.names === undefined) return true;
  return (
    (selection.namePrefix !== undefined && name.startsWith(selection.namePrefix)) ||
    selection.names?.includes(name) === true
  );
}

/** Whether `selection` selects `machine`: by name (when names or a prefix are given), then by tag (when given). */
export function isSelected(selection: DiscoverySelection, machine: SelectableMachine): boolean {
  if (!nameIsSelected(selection, machine.name)) return false;
  return selection.tag === undefined || machine.tags[selection.tag.key] === selection.tag.value;
}

/** Step Functions' own limits on tags (the Tagging API's). */
const MAX_TAG_KEY_LENGTH = 128;
const MAX_TAG_VALUE_LENGTH = 256;

/** Every problem with a selection, so a synth fails once with the whole list. */
export function discoverySelectionProblems(selection: DiscoverySelection): string[] {
  const problems: string[] = [];
  const { namePrefix, names, tag, inputSchemaArnTagKey } = selection;
  // Selecting every machine in the account would make every workflow anyone deploys there a tool: never by default.
  if (namePrefix === undefined && names === undefined && tag === undefined)
    problems.push('discoverTools needs a namePrefix, names or a tag: it never selects every machine in the account');
  if (namePrefix !== undefined && namePrefix.length === 0)
    problems.push('discoverTools namePrefix must not be empty (it would select every machine)');
  if (names !== undefined && (names.length === 0 || names.some((name) => name.length === 0)))
    problems.push('discoverTools names must list at least one name, and no empty one');
  if (tag !== undefined) {
    if (tag.key.length === 0 || tag.key.length > MAX_TAG_KEY_LENGTH)
      problems.push(`discoverTools tag.key must be 1-${MAX_TAG_KEY_LENGTH} characters`);
    if (tag.value.length === 0 || tag.value.length > MAX_TAG_VALUE_LENGTH)
      problems.push(`discoverTools tag.value must be 1-${MAX_TAG_VALUE_LENGTH} characters`);
  }
  if (
    inputSchemaArnTagKey !== undefined &&
    (inputSchemaArnTagKey.length === 0 || inputSchemaArnTagKey.length > MAX_TAG_KEY_LENGTH)
  )
    problems.push(`discoverTools inputSchemaArnTagKey must be 1-${MAX_TAG_KEY_LENGTH} characters`);
  return problems;
}
