// The task view (an MCP App) on the wire, in both eras: tools that may run as tasks and the status tools name its ui://
// resource; resources/list and resources/read serve it with the MCP App MIME type and a CSP that allows nothing; the
// app-only tools are listed and served only to a host that declared MCP Apps, and act on the caller's own tasks alone.
import { beforeEach, describe, expect, it } from 'vitest';
import { STATUS_TOOL_NAMES, TASK_VIEW_TOOL_NAMES } from '../../../lambda/contract/tool-definition.js';
import { APPS_EXTENSION } from '../../../lambda/protocol/declared-task-support.js';
import type { McpHttpApp } from '../../../lambda/protocol/http-app.js';
import { TASK_VIEW_URI } from '../../../lambda/protocol/task-view-resource.js';
import { executionNameOf, taskKeyFromExecutionName } from '../../../lambda/core/task-key.js';
import { InMemoryProgressStore } from '../../../lambda/store/in-memory-progress-store.js';
import { analyze, ask, inMemoryBackend, type InMemoryBackend } from '../../support/in-memory-backend.js';
import { modernRequest, standardHeaders, WITH_TASKS } from '../../support/modern-client.js';

const LEGACY_VERSION = '2025-11-25';
const APPS = { extensions: { [APPS_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] } } };
type Era = 'legacy' | 'modern';
const ERAS: readonly Era[] = ['legacy', 'modern'];

interface RpcAnswer {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

let backend: InMemoryBackend;
let app: McpHttpApp;

beforeEach(() => {
  backend = inMemoryBackend();
  app = backend.httpApp();
});

async function answerOf(response: Response): Promise<RpcAnswer> {
  const text = await response.text();
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .find((line) => line.startsWith('data: {'))!
        .slice(6);
  return JSON.parse(data) as RpcAnswer;
}

/** A 2025 client's session: its initialize, declaring Apps or not, and the session id it is answered with. */
async function legacySession(owner: string, apps: boolean): Promise<string> {
  const response = await app.handle(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_VERSION,
          capabilities: apps ? APPS : {},
          clientInfo: { name: 'unit', version: '1' },
        },
      }),
    }),
    owner,
  );
  return response.headers.get('mcp-session-id')!;
}

/** One request of `era` from `owner`, from a host that declared MCP Apps unless `apps` is false. */
async function rpc(
  era: Era,
  method: string,
  params: Record<string, unknown> = {},
  { owner = 'alice', apps = true }: { owner?: string; apps?: boolean } = {},
): Promise<RpcAnswer> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  let body: unknown;
  if (era === 'legacy') {
    Object.assign(headers, {
      'mcp-protocol-version': LEGACY_VERSION,
      'mcp-session-id': await legacySession(owner, apps),
    });
    body = { jsonrpc: '2.0', id: 1, method, params };
  } else {
    const capabilities = apps ? { extensions: { ...WITH_TASKS.extensions, ...APPS.extensions } } : WITH_TASKS;
    body = modernRequest(method, params, capabilities);
    Object.assign(headers, standardHeaders({ method, params }));
  }
  const request = new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
  return answerOf(await app.handle(request, owner));
}

type ListedTool = { name: string; _meta?: { ui?: { resourceUri?: string; visibility?: string[] } } };
const toolsOf = (answer: RpcAnswer) => answer.result!['tools'] as ListedTool[];
const textOf = (answer: RpcAnswer) => (answer.result!['content'] as { text: string }[])[0]!.text;

describe.each(ERAS)('the task view in the %s era', (era) => {
  it('is named by every tool that may run as a task and by the status tools, as a tool result any host may show', async () => {
    const tools = toolsOf(await rpc(era, 'tools/list', {}, { apps: false }));
    const named = tools.filter((tool) => !Object.values(TASK_VIEW_TOOL_NAMES).includes(tool.name as never));
    expect(named.length).toBeGreaterThan(0);
    for (const tool of named) expect(tool._meta?.ui).toEqual({ resourceUri: TASK_VIEW_URI });
    if (era === 'legacy')
      expect(named.map((tool) => tool.name)).toEqual(expect.arrayContaining(Object.values(STATUS_TOOL_NAMES)));
  });

  it('lists its app-only tools, hidden from the model, only to a host that declared MCP Apps', async () => {
    const withApps = toolsOf(await rpc(era, 'tools/list'));
    const viewTools = withApps.filter((tool) => tool._meta?.ui?.visibility !== undefined);
    expect(viewTools.map((tool) => tool.name).sort()).toEqual(Object.values(TASK_VIEW_TOOL_NAMES).sort());
    for (const tool of viewTools) expect(tool._meta?.ui).toEqual({ resourceUri: TASK_VIEW_URI, visibility: ['app'] });
    const without = toolsOf(await rpc(era, 'tools/list', {}, { apps: false })).map((tool) => tool.name);
    for (const name of Object.values(TASK_VIEW_TOOL_NAMES)) expect(without).not.toContain(name);
  });

  it('serves one ui:// resource, an HTML document with the MCP App MIME type and a CSP that allows no origin', async () => {
    const listed = (await rpc(era, 'resources/list')).result!['resources'] as Record<string, unknown>[];
    expect(listed).toEqual([expect.objectContaining({ uri: TASK_VIEW_URI, mimeType: 'text/html;profile=mcp-app' })]);
    const read = await rpc(era, 'resources/read', { uri: TASK_VIEW_URI }, { apps: false });
    const [content] = read.result!['contents'] as { uri: string; mimeType: string; text: string; _meta: unknown }[];
    expect(content!.uri).toBe(TASK_VIEW_URI);
    expect(content!.mimeType).toBe('text/html;profile=mcp-app');
    expect(content!.text.startsWith('<!doctype html>')).toBe(true);
    expect(content!.text).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
    expect(content!._meta).toEqual({
      ui: {
        csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
        prefersBorder: true,
      },
    });
  });

  it('answers a resource it does not have as not found, with the era’s code', async () => {
    const answer = await rpc(era, 'resources/read', { uri: 'ui://mcp-tasks/other.html' });
    // 2025-11-25 has its own "Resource not found" code; 2026-07-28 answers it as invalid params.
    expect(answer.error?.code).toBe(era === 'legacy' ? -32002 : -32602);
  });

  it('reads the caller’s task: tool, status, message, progress, step, elapsed time and when to read it again', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const key = taskKeyFromExecutionName(executionNameOf(task.executionArn))!;
    const report = { message: 'Reading {progress} of {total}', progress: 1, total: 4, at: Date.now() };
    await new InMemoryProgressStore(backend.store).record(key, task.executionArn, report);
    backend.executor.enterStep(task.executionArn, 'Analyze');
    await backend.statusEvent(task);
    const answer = await rpc(era, 'tools/call', { name: TASK_VIEW_TOOL_NAMES.get, arguments: { taskId: task.taskId } });
    const state = answer.result!['structuredContent'] as Record<string, unknown>;
    expect(state).toMatchObject({
      taskId: task.taskId,
      toolName: 'analyze_documents',
      status: 'working',
      message: 'Reading 1 of 4',
      progress: { progress: 1, total: 4 },
    });
    expect(state['terminal']).toBe(false);
    expect(state['elapsedMs']).toBeGreaterThanOrEqual(0);
    expect(state['pollAfterMs']).toBeGreaterThan(0);
    expect(answer.result!['isError']).toBeUndefined();
  });

  it('gives another owner’s task id the answer an unknown id gets', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    for (const name of Object.values(TASK_VIEW_TOOL_NAMES)) {
      const args = { taskId: task.taskId, key: 'k', action: 'decline' };
      const foreign = await rpc(era, 'tools/call', { name, arguments: args }, { owner: 'bob' });
      const unknown = await rpc(era, 'tools/call', { name, arguments: { ...args, taskId: 'f'.repeat(32) } });
      expect(foreign.result!['isError']).toBe(true);
      expect(textOf(foreign)).toBe(textOf(unknown).replace('f'.repeat(32), task.taskId));
      expect(foreign.result!['structuredContent']).toBeUndefined();
    }
    expect((await backend.service().getTask('alice', task.taskId)).status).toBe(task.status);
  });

  it('shows the form a task waits on, refuses an answer that does not fit with the reason, and sends one that does', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    await ask(backend, task.executionArn, 'approval');
    await backend.statusEvent(task);
    const call = (name: string, args: Record<string, unknown>) =>
      rpc(era, 'tools/call', { name, arguments: { taskId: task.taskId, ...args } });
    const state = (await call(TASK_VIEW_TOOL_NAMES.get, {})).result!['structuredContent'] as Record<string, unknown>;
    expect(state['status']).toBe('input_required');
    expect(state['question']).toMatchObject({ key: 'approval', message: 'Refund?' });
    const refused = await call(TASK_VIEW_TOOL_NAMES.answer, {
      key: 'approval',
      action: 'accept',
      content: { approve: true, amount: 99 },
    });
    expect(refused.result!['isError']).toBe(true);
    expect((refused.result!['structuredContent'] as Record<string, unknown>)['refusal']).toMatch(/^Refused: .*amount/);
    const sent = await call(TASK_VIEW_TOOL_NAMES.answer, {
      key: 'approval',
      action: 'accept',
      content: { approve: true },
    });
    expect(sent.result!['isError']).toBeUndefined();
    expect(backend.executor.execution(task.executionArn).answers.map((answer) => JSON.parse(answer))).toEqual([
      { action: 'accept', content: { approve: true } },
    ]);
  });

  it('cancels the caller’s task, and says so when it had already ended', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const args = { name: TASK_VIEW_TOOL_NAMES.cancel, arguments: { taskId: task.taskId } };
    const cancelled = await rpc(era, 'tools/call', args);
    expect((cancelled.result!['structuredContent'] as Record<string, unknown>)['status']).toBe('cancelled');
    const again = await rpc(era, 'tools/call', args);
    expect(again.result!['isError']).toBe(true);
    expect(textOf(again)).toMatch(/already ended as cancelled/);
  });

  it('is no tool to a client that did not declare MCP Apps', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const args = { name: TASK_VIEW_TOOL_NAMES.get, arguments: { taskId: task.taskId } };
    const answer = await rpc(era, 'tools/call', args, { apps: false });
    const unknownTool = await rpc(era, 'tools/call', { ...args, name: 'no_such_tool' }, { apps: false });
    expect(answer.result?.['structuredContent']).toBeUndefined();
    expect(answer.error?.code ?? answer.result?.['isError']).toEqual(
      unknownTool.error?.code ?? unknownTool.result?.['isError'],
    );
  });
});
