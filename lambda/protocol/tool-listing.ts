// tools/list, the same in both eras: each registered tool with its input schema and task support.
import type { ToolRegistry } from '../tools/tool-registry.js';

export function toolListing(tools: ToolRegistry) {
  return tools.list().map((tool) => ({
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
    execution: { taskSupport: tool.taskSupport ?? ('optional' as const) },
  }));
}
