// Picks the protocol per server at connect time. `auto` asks with the 2.x client's version negotiation: a server
// that negotiates 2026-07-28 and advertises the Tasks extension gets the modern adapter; anything else (a
// 2025-11-25 server, or a modern one without the extension) gets the 1.x SDK's 2025-11-25 tasks.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLIENT_INFO, type Endpoint } from './endpoint.js';
import { ServerError, UsageError } from './cli-errors.js';
import { LegacyTaskClient } from './legacy-task-client.js';
import { MODERN_VERSION } from './modern-dispatch.js';
import { ModernTaskClient, TASKS_EXTENSION } from './modern-task-client.js';
import type { TaskClient } from './task-client.js';

export const PROTOCOLS = ['auto', MODERN_VERSION, '2025-11-25'] as const;
export type ProtocolChoice = (typeof PROTOCOLS)[number];

function authHeaders(endpoint: Endpoint): Record<string, string> {
  return endpoint.token ? { authorization: `Bearer ${endpoint.token}` } : {};
}

/** A 2.x client connected with the given negotiation mode, or `undefined` if the server is not modern. */
async function connectModern(endpoint: Endpoint, mode: 'auto' | { pin: string }): Promise<Client | undefined> {
  const client = new Client({ ...CLIENT_INFO }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: authHeaders(endpoint) } }),
  );
  if (
    client.getProtocolEra() === 'modern' &&
    client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION] !== undefined
  )
    return client;
  await client.close();
  return undefined;
}

/**
 * Connects with the chosen protocol. `needsTaskList`: the Tasks extension has no tasks/list, so under `auto` a
 * server that also speaks 2025-11-25 tasks is asked in that dialect instead (this server keeps one task list
 * for both).
 */
export async function connectTaskClient(
  endpoint: Endpoint,
  protocol: ProtocolChoice,
  options: { needsTaskList?: boolean } = {},
): Promise<TaskClient> {
  try {
    new URL(endpoint.url);
  } catch {
    throw new UsageError(`Not a URL: '${endpoint.url}'. Pass --url or set MCP_TASKS_URL.`);
  }
  try {
    if (protocol !== '2025-11-25') {
      const modern = await connectModern(endpoint, protocol === 'auto' ? 'auto' : { pin: MODERN_VERSION });
      if (modern) {
        const client = ModernTaskClient.over(modern, endpoint);
        if (!(options.needsTaskList && protocol === 'auto' && !client.canListTasks)) return client;
        await client.close();
      }
      if (protocol === MODERN_VERSION)
        throw new ServerError(
          `The server at ${endpoint.url} does not advertise the Tasks extension (${TASKS_EXTENSION}) ` +
            `on ${MODERN_VERSION}.`,
        );
    }
    const legacy = await LegacyTaskClient.connect(endpoint);
    return legacy;
  } catch (error) {
    if (error instanceof ServerError || error instanceof UsageError) throw error;
    throw new ServerError(`Cannot connect to the MCP server at ${endpoint.url}: ${describe(error)}`, { cause: error });
  }
}

/** The most telling message in an error chain: fetch's "fetch failed" hides ECONNREFUSED in its cause. */
function describe(error: unknown): string {
  const messages: string[] = [];
  for (let current: unknown = error; current instanceof Error && messages.length < 4; current = current.cause)
    messages.push(current.message);
  return messages.join(': ') || String(error);
}
