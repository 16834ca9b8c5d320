// A third-party MCP server that speaks 2025-11-25 tasks, built only from the official 1.x SDK (its McpServer,
// experimental task tools and in-memory task store) over stateful Streamable HTTP: proof that mcp-tasks is not
// tied to this project's backend. Its one tool, `count_up`, reports progress (progress/total) as it goes.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InMemoryTaskMessageQueue,
  InMemoryTaskStore,
} from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

export interface SdkTaskServer {
  readonly url: string;
  close(): Promise<void>;
}

/** One McpServer per session (the SDK binds a server to one transport), all sharing one task store. */
function newSession(taskStore: InMemoryTaskStore, stepMs: number): McpServer {
  const server = new McpServer(
    { name: 'sdk-task-server', version: '1.0.0' },
    {
      capabilities: { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } },
      taskStore,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );
  server.experimental.tasks.registerToolTask(
    'count_up',
    {
      description: 'Counts to `to`, one step at a time, reporting progress.',
      inputSchema: { to: z.number().int().min(1) },
      execution: { taskSupport: 'required' },
    },
    {
      async createTask({ to }, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? null });
        const progressToken = extra._meta?.progressToken;
        void (async () => {
          for (let step = 1; step <= to; step++) {
            await new Promise((resolve) => setTimeout(resolve, stepMs));
            await extra.taskStore.updateTaskStatus(task.taskId, 'working', `Counted ${step} of ${to}`);
            // No related request: the response that created the task is over, so this goes on the session's stream.
            if (progressToken !== undefined)
              await server.server
                .notification({
                  method: 'notifications/progress',
                  params: { progressToken, progress: step, total: to },
                })
                .catch(() => {});
          }
          await extra.taskStore.storeTaskResult(task.taskId, 'completed', {
            content: [{ type: 'text', text: `Counted to ${to}.` }],
          });
        })();
        return { task };
      },
      getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId).then((task) => task!),
      getTaskResult: (_args, extra) => extra.taskStore.getTaskResult(extra.taskId) as never,
    },
  );
  return server;
}

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
}

export async function startSdkTaskServer(options: { stepMs?: number } = {}): Promise<SdkTaskServer> {
  const taskStore = new InMemoryTaskStore();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((request, response) => {
    void (async () => {
      const sessionId = request.headers['mcp-session-id'];
      const parsed = request.method === 'POST' ? await body(request) : undefined;
      let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      if (!transport && request.method === 'POST' && isInitializeRequest(parsed)) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, created),
        });
        await newSession(taskStore, options.stepMs ?? 200).connect(created);
        transport = created;
      }
      if (!transport) {
        response.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32000, message: 'Bad Request: no valid session' },
          }),
        );
        return;
      }
      await transport.handleRequest(request, response, parsed);
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      taskStore.cleanup();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
