// End to end in a real browser: the task view (an MCP App) hosted by ext-apps' own host-side bridge in headless
// Chromium, on a test page whose bridge forwards the view's tool calls to the server through an MCP client (a host
// with MCP Apps does the same). The view follows a handed-off call as its progress moves, answers refund_order's
// approval form so that the workflow goes on, and cancels a task once confirmed. With UPDATE_SCREENSHOTS=1 it also
// rewrites docs/task-view.png.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { build } from 'esbuild';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TASK_VIEW_URI } from '../../lambda/protocol/task-view-resource.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from '../support/browser-login.js';
import { GENEROUS_WAIT, progressTable, startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');
const SCREENSHOT = join(ROOT, 'docs', 'task-view.png');
const APPS = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };

let server: TestServer;
let client: Client;
/** The same host on 2026-07-28 (the 2.x client, without the Tasks extension): it declares Apps on every request. */
let modern: ModernClient;
let browser: Browser;
let hostScript: string;
let tools: Tool[];
let viewHtml: string;
/** Every tool the view called through its host, by name. */
const viewCalls: string[] = [];

beforeAll(async () => {
  // The table the emulator's progress and ask steps record on, so the tasks show progress and questions.
  server = await startTestServer({ directCallTimeoutMs: 1_500 }, { tableName: progressTable() });
  // A host with MCP Apps: it declares the extension, and so is shown the app-only tools.
  client = new Client({ name: 'task-view-test-host', version: '1.0.0' }, { capabilities: { extensions: APPS } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKENS.alice}` } },
    }),
  );
  modern = new ModernClient(
    { name: 'task-view-test-host', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { extensions: APPS } },
  );
  await modern.connect(
    new ModernTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${TOKENS.alice}` } } }),
  );
  tools = (await client.listTools()).tools;
  const read = await client.readResource({ uri: TASK_VIEW_URI });
  viewHtml = String((read.contents[0] as { text: string }).text);
  const bundle = await build({
    entryPoints: [join(ROOT, 'test', 'support', 'task-view-host.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  });
  hostScript = bundle.outputFiles[0]!.text.replaceAll('</script', '<\\/script');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await modern?.close();
  await server?.close();
});
beforeEach(() => {
  viewCalls.length = 0;
});

const toolNamed = (name: string): Tool => tools.find((tool) => tool.name === name)!;

type Era = 'legacy' | 'modern';

/** A tool call through the host's client of `era`. */
async function callTool(era: Era, params: { name: string; arguments?: Record<string, unknown> }) {
  return era === 'legacy' ? client.callTool(params, CallToolResultSchema) : modern.callTool(params);
}

/** A test page hosting the view for a call of `toolName` with `args`; the result is sent once the view is up. */
async function hostView(
  toolName: string,
  args: Record<string, unknown>,
  era: Era = 'legacy',
): Promise<{ page: Page; view: FrameLocator }> {
  const page = await browser.newPage({ viewport: { width: 600, height: 700 } });
  await page.exposeFunction('callServerTool', async (params: { name: string; arguments?: Record<string, unknown> }) => {
    viewCalls.push(params.name);
    return callTool(era, params);
  });
  await page.setContent(`<!doctype html><html><body><script type="module">${hostScript}</script></body></html>`);
  await page.waitForFunction(() => 'openTaskView' in window);
  await page.evaluate(
    ([html, tool, input]) =>
      (window as unknown as { openTaskView: (...args: unknown[]) => Promise<void> }).openTaskView(html, tool, input),
    [viewHtml, toolNamed(toolName), args] as const,
  );
  return { page, view: page.frameLocator('iframe') };
}

const sendResult = (page: Page, result: unknown) =>
  page.evaluate(
    (sent) => (window as unknown as { sendToolResult: (r: unknown) => Promise<void> }).sendToolResult(sent),
    result,
  );

describe.skipIf(!chromiumAvailable())('the task view in a browser, hosted through ext-apps’ AppBridge', () => {
  it('is named by the tools that may run as tasks, and served as an MCP App', () => {
    for (const name of ['analyze_documents', 'refund_order', 'task_result'])
      expect(toolNamed(name)._meta).toMatchObject({ ui: { resourceUri: TASK_VIEW_URI } });
    expect(viewHtml).toMatch(/^<!doctype html>/);
  });

  it.each(['legacy', 'modern'] as const)(
    'follows a handed-off call (%s era): the progress moves, the elapsed time runs, and it ends completed',
    async (era) => {
      const args = { documents: ['The cat sat.', 'A dog ran far.', 'Birds fly.'], reviewSeconds: 6 };
      const { page, view } = await hostView('analyze_documents', args, era);
      try {
        const handoff = await callTool(era, { name: 'analyze_documents', arguments: args });
        const taskId = (handoff._meta?.['io.modelcontextprotocol/related-task'] as { taskId: string }).taskId;
        await sendResult(page, handoff);
        await expect.poll(() => view.locator('#task-id').textContent(), GENEROUS_WAIT).toBe(taskId);
        await expect.poll(() => view.locator('#tool').textContent(), GENEROUS_WAIT).toBe('analyze_documents');
        // The review's countdown: the message moves on while the task runs.
        const seen = new Set<string>();
        await vi
          .waitUntil(async () => {
            seen.add((await view.locator('#message').textContent()) ?? '');
            return [...seen].filter((message) => /left/.test(message)).length >= 2;
          }, GENEROUS_WAIT)
          .catch((error: unknown) => {
            throw new Error(`The message never moved on: ${JSON.stringify([...seen])}`, { cause: error });
          });
        expect(await view.locator('#progress-text').textContent()).toMatch(/^\d+ of 3$/);
        const elapsed = await view.locator('#elapsed').textContent();
        await expect.poll(() => view.locator('#elapsed').textContent(), GENEROUS_WAIT).not.toBe(elapsed);
        await expect.poll(() => view.locator('#status').textContent(), GENEROUS_WAIT).toBe('completed');
        expect(await view.locator('#actions').isHidden()).toBe(true);
        expect(viewCalls.every((name) => name === 'task_view_get')).toBe(true);
      } finally {
        await page.close();
      }
    },
  );

  it('shows refund_order’s approval form, holds a field to its bounds, and its answer moves the workflow on', async () => {
    const args = { orderId: 'A-17', reason: 'arrived broken' };
    const { page, view } = await hostView('refund_order', args);
    try {
      const created = await client.request(
        { method: 'tools/call', params: { name: 'refund_order', arguments: args, task: { ttl: 600_000 } } },
        CreateTaskResultSchema,
      );
      await sendResult(page, created);
      await expect.poll(() => view.locator('#status').textContent(), GENEROUS_WAIT).not.toBe('working');
      expect(await view.locator('#status').textContent(), (await view.locator('#message').textContent()) ?? '').toBe(
        'input required',
      );
      const form = view.locator('#question');
      await expect.poll(() => form.locator('p').first().textContent(), GENEROUS_WAIT).toMatch(/^Approve a refund of/);
      // A yes/no starts on No: Enter alone never approves.
      expect(await form.locator('input[type=radio][value=no]').isChecked()).toBe(true);
      await form.locator('input[type=radio][value=yes]').check();
      await form.locator('input[type=number]').fill('100000');
      await form.locator('#answer').click();
      await expect.poll(async () => (await form.locator('.problem').allTextContents()).join('')).toMatch(/^At most \d/);
      expect(viewCalls).not.toContain('task_view_answer');
      await form.locator('input[type=number]').fill('5');
      await form.locator('input[type=text]').fill('Sorry about that.');
      // The docs' picture, rewritten only when asked: every run would change it (a new task id, another elapsed time).
      await page.locator('iframe').screenshot(process.env['UPDATE_SCREENSHOTS'] === '1' ? { path: SCREENSHOT } : {});
      await form.locator('#answer').click();
      await expect.poll(() => view.locator('#notice').textContent(), GENEROUS_WAIT).toBe('Answer sent.');
      await expect.poll(() => view.locator('#status').textContent(), GENEROUS_WAIT).toBe('completed');
      const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      expect(result.structuredContent).toMatchObject({ refunded: true, amount: 5 });
    } finally {
      await page.close();
    }
  });

  it.each(['legacy', 'modern'] as const)('cancels a task only once the person confirms (%s era)', async (era) => {
    const args = { documents: ['One two.'], reviewSeconds: 600 };
    const { page, view } = await hostView('analyze_documents', args, era);
    try {
      const handoff = await callTool(era, { name: 'analyze_documents', arguments: args });
      await sendResult(page, handoff);
      await expect.poll(() => view.locator('#status').textContent(), GENEROUS_WAIT).toBe('working');
      await view.locator('#cancel').click();
      await view.locator('#confirm-no').click();
      expect(viewCalls).not.toContain('task_view_cancel');
      await view.locator('#cancel').click();
      await view.locator('#confirm-yes').click();
      await expect.poll(() => view.locator('#status').textContent(), GENEROUS_WAIT).toBe('cancelled');
      const taskId = (handoff._meta?.['io.modelcontextprotocol/related-task'] as { taskId: string }).taskId;
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    } finally {
      await page.close();
    }
  });
});
