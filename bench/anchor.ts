// The bench's anchor: what the official SDK (`@modelcontextprotocol/sdk` 1.x) gives out of the box for 2025-11-25
// tasks, stateless (a server and transport per request, as the SDK's own stateless example does) over one shared
// `InMemoryTaskStore`. No database, no Step Functions: the floor the project's figures are compared with.
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { McpHttpApp } from '../lambda/protocol/http-app.js';

/** How long the anchor's tool works: a stand-in for a fast state machine. */
export const ANCHOR_TOOL_MS = 50;
export const ANCHOR_TASK_TOOL = 'sleep_task';
export const ANCHOR_PLAIN_TOOL = 'sleep';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const done = () => ({ content: [{ type: 'text' as const, text: `slept ${ANCHOR_TOOL_MS} ms` }] });

export function createAnchorApp(): McpHttpApp {
  const taskStore = new InMemoryTaskStore();
  const serverFor = (): McpServer => {
    const server = new McpServer(
      { name: 'anchor', version: '1.0.0' },
      { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore },
    );
    server.registerTool(ANCHOR_PLAIN_TOOL, {}, async () => (await sleep(ANCHOR_TOOL_MS), done()));
    // As the SDK's example `delay` tool: the work runs out of band and stores its result when done.
    server.experimental.tasks.registerToolTask(
      ANCHOR_TASK_TOOL,
      { execution: { taskSupport: 'required' } },
      {
        async createTask({ taskStore: store, taskRequestedTtl }) {
          const task = await store.createTask({ ttl: taskRequestedTtl ?? null });
          // The shared store itself: the request-scoped one would notify a server closed since.
          void sleep(ANCHOR_TOOL_MS).then(() => taskStore.storeTaskResult(task.taskId, 'completed', done()));
          return { task };
        },
        getTask: async ({ taskId, taskStore: store }) => (await store.getTask(taskId))!,
        getTaskResult: async ({ taskId, taskStore: store }) => (await store.getTaskResult(taskId)) as never,
      },
    );
    return server;
  };
  return {
    async handle(request) {
      const server = serverFor();
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        return await transport.handleRequest(request);
      } finally {
        await server.close();
      }
    },
  };
}
