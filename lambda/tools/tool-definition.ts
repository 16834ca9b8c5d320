// What a tool is: a name, a description, the JSON Schema of its input, and the state machine that runs it.

export type JsonSchema = { readonly type: 'object' } & Readonly<Record<string, unknown>>;

export interface ToolDefinition {
  /** MCP tool name: 1-128 characters of `A-Za-z0-9_-.`. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** JSON Schema (draft 2020-12 or 07) for the tool's arguments; must describe an object. */
  readonly inputSchema: JsonSchema;
  readonly stateMachineArn: string;
  /** Whether calls may (`optional`), must (`required`) or must not (`forbidden`) run as tasks. @default 'optional' */
  readonly taskSupport?: 'forbidden' | 'optional' | 'required';
  /**
   * Client capabilities the tool's workflow relies on, in MCP's ClientCapabilities shape (e.g. `{ "sampling": {} }`
   * for a workflow that asks the client's model): a modern-era call that does not declare them is refused (-32021).
   */
  readonly requiredClientCapabilities?: Readonly<Record<string, object>>;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Every problem with a set of tool definitions, so a deploy or start fails once with the whole list. */
export function toolDefinitionProblems(tools: readonly Pick<ToolDefinition, 'name' | 'inputSchema'>[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name)) problems.push(`Tool name '${tool.name}' must be 1-128 characters of A-Z, a-z, 0-9, '_', '-' or '.'`);
    if (seen.has(tool.name)) problems.push(`Tool name '${tool.name}' is registered more than once`);
    seen.add(tool.name);
    if (tool.inputSchema?.type !== 'object') problems.push(`Tool '${tool.name}': inputSchema must be a JSON Schema with "type": "object"`);
  }
  return problems;
}
