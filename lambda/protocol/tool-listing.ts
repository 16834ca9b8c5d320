// tools/list, the same in both eras: each registered tool with its input schema and task support, and, on a tool that
// may run as a task, the task view a host with MCP Apps shows beside its result (task-view-resource.ts).
import type { ToolRegistry } from '../tools/tool-registry.js';
import { showsTaskView, TASK_VIEW_TOOL_META } from './task-view-resource.js';

export function toolListing(tools: ToolRegistry) {
  return tools.list().map((tool) => ({
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
    execution: { taskSupport: tool.taskSupport ?? ('optional' as const) },
    ...(showsTaskView(tool) ? { _meta: TASK_VIEW_TOOL_META } : {}),
  }));
}
