// Which task a tool result names, whichever way the call went: a plain call handed off as a task, or a status tool's
// answer (the handle in `_meta`, 2025-11-25's related-task key, or SEP-1686's), a 2025-11-25 task-augmented call's
// CreateTaskResult (`task.taskId`), a 2026-07-28 one's (`taskId`, `resultType: "task"`). A status tool's input names it
// too, before its result comes. A result that names none is a call that ended within its wait: there is no task.
import { STATUS_TOOL_NAMES } from '../lambda/contract/tool-definition.js';

const RELATED_TASK_KEYS = ['io.modelcontextprotocol/related-task', 'modelcontextprotocol.io/related-task'];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const idIn = (value: unknown): string | undefined =>
  isRecord(value) && typeof value['taskId'] === 'string' && value['taskId'] !== '' ? value['taskId'] : undefined;

/** The task id a tool result names, or `undefined`. */
export function taskIdOfResult(result: unknown): string | undefined {
  if (!isRecord(result)) return undefined;
  const meta = result['_meta'];
  for (const key of RELATED_TASK_KEYS) {
    const id = isRecord(meta) ? idIn(meta[key]) : undefined;
    if (id !== undefined) return id;
  }
  return idIn(result['task']) ?? (result['resultType'] === 'task' ? idIn(result) : undefined);
}

const STATUS_TOOLS: ReadonlySet<string> = new Set(Object.values(STATUS_TOOL_NAMES));

/** The task a status tool's arguments name (task_status, task_result, task_cancel), before its answer comes. */
export function taskIdOfInput(toolName: string | undefined, args: unknown): string | undefined {
  return toolName !== undefined && STATUS_TOOLS.has(toolName) ? idIn(args) : undefined;
}

/** The first text of a tool result, for a call that ended without a task. */
export function textOfResult(result: unknown): string | undefined {
  const content = isRecord(result) ? result['content'] : undefined;
  if (!Array.isArray(content)) return undefined;
  const text = content.find(
    (block) => isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string',
  );
  return text === undefined ? undefined : String(text.text);
}
