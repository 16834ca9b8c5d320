// The task view as an MCP App (SEP-1865, the `io.modelcontextprotocol/ui` extension): one `ui://` resource, a single
// self-contained HTML file (view/, bundled by scripts/build-task-view.ts), that a host renders beside the result of a
// tool that may run as a task. Served the same in both eras; a host without Apps ignores `_meta.ui` and never reads it.
import { gunzipSync } from 'node:zlib';
import type { ToolDefinition } from '../contract/tool-definition.js';

export const TASK_VIEW_URI = 'ui://mcp-tasks/task-view.html';

/** The MIME type of an MCP App's HTML (ext-apps' RESOURCE_MIME_TYPE; not imported, so the bundle stays without it). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * What the view may reach beyond the host bridge (postMessage, which no CSP governs): nothing. Every list empty, so a
 * host builds its most restrictive policy (no connect, resource, frame or base URI origins); the HTML's own meta
 * policy says the same, with its one script and one stylesheet allowed by hash.
 */
export const TASK_VIEW_CSP = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] } as const;

const RESOURCE_META = { ui: { csp: TASK_VIEW_CSP, prefersBorder: true } } as const;

/** The `_meta` of a tool whose results the view shows (visible to model and app alike, the default). */
export const TASK_VIEW_TOOL_META = { ui: { resourceUri: TASK_VIEW_URI } } as const;

/** Whether tools/list names the view on a tool: only one that may run as a task has one to show. */
export function showsTaskView(tool: Pick<ToolDefinition, 'taskSupport'>): boolean {
  return tool.taskSupport !== 'forbidden';
}

/** resources/list's entry. */
export const TASK_VIEW_RESOURCE = {
  uri: TASK_VIEW_URI,
  name: 'task-view',
  title: 'Task view',
  description:
    'A live view of a task: its status, progress and current step, the form of a question it waits on, and Cancel.',
  mimeType: MCP_APP_MIME_TYPE,
  _meta: RESOURCE_META,
} as const;

/**
 * The HTML, loaded and unzipped on the first read: a separate chunk in the Lambda bundle, so a cold start that never
 * serves the view never parses it (gzipped in the module, so the bundle stays within its budget).
 */
let html: Promise<string> | undefined;
const loadHtml = (): Promise<string> =>
  (html ??= import('./task-view-html.js').then((module) =>
    gunzipSync(Buffer.from(module.TASK_VIEW_HTML_GZIP_BASE64, 'base64')).toString('utf8'),
  ));

/** resources/read's answer for `uri`, or `undefined` when this server has no such resource. */
export async function readTaskViewResource(uri: string) {
  if (uri !== TASK_VIEW_URI) return undefined;
  return { contents: [{ uri, mimeType: MCP_APP_MIME_TYPE, text: await loadHtml(), _meta: RESOURCE_META }] };
}
