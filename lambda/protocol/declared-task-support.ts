// Whether a client speaks tasks, which decides whether tools/list shows it the status tools. A 2026-07-28 request
// declares its capabilities itself. A 2025 client declares them once, at initialize, and the stateless requests after
// it carry nothing of that: so the session ID an initialize is answered with carries the declaration (a prefix;
// nothing is stored, any instance reads it), and the client's SDK sends it back on every request. The `tasks`
// capability formally covers requests the server sends the client, but a client that declares it knows tasks, and no
// 2025 client says more. A request without such an ID (a client that keeps none, a raw request) is taken as one
// without tasks: three more tools cost a task-capable client little, while their absence would strand a long call.
// The same ID says whether the client declared MCP Apps (the `io.modelcontextprotocol/ui` extension): only such a
// host is shown the task view's app-only tools, since a host without Apps would hand them to the model.
import { randomUUID } from 'node:crypto';

const TASKS_SESSION_PREFIX = 'tasks-';
const PLAIN_SESSION_PREFIX = 'plain-';
/** After the tasks prefix: the client declared MCP Apps. */
const APPS_SESSION_MARK = 'apps-';
/** The extension a host that renders MCP Apps declares (SEP-1865). */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The session ID to answer a 2025-era initialize with, saying whether it declared tasks; `undefined` for others. */
export function sessionIdForInitialize(message: unknown): string | undefined {
  if (!isPlainObject(message) || message['method'] !== 'initialize') return undefined;
  const params = message['params'];
  const capabilities = isPlainObject(params) ? params['capabilities'] : undefined;
  const declaresTasks = isPlainObject(capabilities) && isPlainObject(capabilities['tasks']);
  const extensions = isPlainObject(capabilities) ? capabilities['extensions'] : undefined;
  const declaresApps = isPlainObject(extensions) && isPlainObject(extensions[APPS_EXTENSION]);
  const prefix = declaresTasks ? TASKS_SESSION_PREFIX : PLAIN_SESSION_PREFIX;
  return `${prefix}${declaresApps ? APPS_SESSION_MARK : ''}${randomUUID()}`;
}

/** Whether a 2025-era request comes from a client that declared tasks at its initialize. */
export function sessionDeclaresTasks(sessionId: string | null | undefined): boolean {
  return sessionId?.startsWith(TASKS_SESSION_PREFIX) === true;
}

/** Whether a 2025-era request comes from a host that declared MCP Apps at its initialize. */
export function sessionDeclaresApps(sessionId: string | null | undefined): boolean {
  if (sessionId === null || sessionId === undefined) return false;
  const rest = sessionId.startsWith(TASKS_SESSION_PREFIX)
    ? sessionId.slice(TASKS_SESSION_PREFIX.length)
    : sessionId.startsWith(PLAIN_SESSION_PREFIX)
      ? sessionId.slice(PLAIN_SESSION_PREFIX.length)
      : undefined;
  return rest?.startsWith(APPS_SESSION_MARK) === true;
}
