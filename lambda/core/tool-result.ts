// The result a tool call returns, shaped like MCP's CallToolResult without depending on the MCP SDK.

export interface TextContent {
  readonly type: 'text';
  readonly text: string;
}

/** Structurally a CallToolResult: `content` blocks, optional `structuredContent`, `isError` for tool-level errors. */
export interface ToolResult {
  readonly content: readonly ({ readonly type: string } & Record<string, unknown>)[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

export function textResult(text: string, isError = false): ToolResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isContentArray(value: unknown): value is ToolResult['content'] {
  return Array.isArray(value) && value.every((block) => isPlainObject(block) && typeof block['type'] === 'string');
}

/**
 * Turns a state machine's output into the tool's result.
 *
 * - An object with a `content` array of MCP content blocks is taken as a CallToolResult as it is,
 *   so a state machine can return rich content.
 * - Any other JSON object becomes `structuredContent`, with its JSON text in `content` for clients
 *   that only read text.
 * - Anything else (string, number, array, null) becomes text.
 * An object output with `"isError": true` marks a tool-level error.
 */
export function toolResultFromOutput(output: unknown): ToolResult {
  if (isPlainObject(output)) {
    const isError = output['isError'] === true;
    if (isContentArray(output['content'])) {
      const structured = output['structuredContent'];
      return {
        content: output['content'],
        ...(isPlainObject(structured) ? { structuredContent: structured } : {}),
        ...(isError ? { isError: true } : {}),
      };
    }
    return {
      content: [{ type: 'text', text: JSON.stringify(output) }],
      structuredContent: output,
      ...(isError ? { isError: true } : {}),
    };
  }
  return textResult(typeof output === 'string' ? output : JSON.stringify(output));
}

/** The tool's result from a SUCCEEDED execution's raw output (JSON text; anything unparsable is taken as text). */
export function toolResultFromExecutionOutput(output: string | undefined): ToolResult {
  if (output === undefined) return toolResultFromOutput(null);
  try {
    return toolResultFromOutput(JSON.parse(output));
  } catch {
    return toolResultFromOutput(output);
  }
}
