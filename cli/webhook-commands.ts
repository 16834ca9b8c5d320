// `mcp-tasks webhook listen` and `mcp-tasks webhook subscribe`: a receiver for the Events extension's signed webhooks
// on this machine, and the events/subscribe request that points a server at one. Each returns the exit code, as the
// task commands do.
import { EXIT, ServerError, UsageError, type ExitCode } from './cli-errors.js';
import type { Output } from './commands.js';
import { TASK_EVENTS, TASKS_UPDATED } from './events-rpc.js';
import { renderSubscription } from './render.js';
import type { TaskClient } from './task-client.js';
import { checkWebhookSecret, generateWebhookSecret, LOOPBACK, startWebhookListener } from './webhook-listener.js';

export interface ListenOptions {
  readonly port: number;
  readonly path: string;
  readonly secret?: string;
}

/** The events/subscribe request (JSON-RPC) that points a server at `url`: every change of the caller's tasks. */
export function subscribeRequestFor(url: string, secret: string): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'events/subscribe',
    params: {
      name: TASKS_UPDATED,
      arguments: {},
      delivery: { mode: 'webhook', url, secret },
      cursor: null,
    },
  };
}

/** Receives webhooks until `stop` resolves (Ctrl-C in main.ts), then closes and exits 0. */
export async function webhookListenCommand(
  output: Output,
  options: ListenOptions,
  stop: Promise<unknown>,
): Promise<ExitCode> {
  if (!options.path.startsWith('/')) throw new UsageError(`--path must start with '/', such as /hooks.`);
  if (options.secret !== undefined) checkWebhookSecret(options.secret);
  const secret = options.secret ?? generateWebhookSecret();
  const listener = await startWebhookListener({
    port: options.port,
    path: options.path,
    secret,
    json: output.json,
    out: output.out,
    err: output.err,
  });
  const request = subscribeRequestFor(listener.url, secret);
  if (output.json) output.out(JSON.stringify({ listening: { url: listener.url, secret, subscribe: request } }));
  else
    output.err(
      [
        `Listening for webhooks on ${listener.url}`,
        `Secret: ${secret}${options.secret === undefined ? '   (made now; pass it with --secret next time)' : ''}`,
        '',
        `This receiver is on loopback (${LOOPBACK}): the local stack (npm start) delivers to it over http.`,
        'A deployed server delivers only to a public https URL: run a tunnel to this port (such as',
        `\`cloudflared tunnel --url http://${LOOPBACK}:${listener.port}\`) and subscribe with its https URL and ${options.path}.`,
        '',
        'Subscribe, in another terminal (--task <taskId> --cursor 0 for one task, from its first event):',
        `  mcp-tasks webhook subscribe ${listener.url} --secret ${secret}`,
        'or send this request to the MCP endpoint:',
        `  ${JSON.stringify(request)}`,
        '',
        'One line per verified delivery: time, subscription, event, task, status, seq. Ctrl-C stops.',
      ].join('\n'),
    );
  try {
    await stop;
  } finally {
    await listener.close();
  }
  return EXIT.ok;
}

export interface SubscribeOptions {
  readonly secret: string;
  readonly task?: string;
  /** With `task`: the cursor to replay after (`"0"`: the task's whole log). */
  readonly cursor?: string;
  readonly ttlMs?: number;
}

/** Sends events/subscribe for `url`: one task's events with --task, else every change of the caller's tasks. */
export async function webhookSubscribeCommand(
  client: TaskClient,
  output: Output,
  url: string,
  options: SubscribeOptions,
): Promise<ExitCode> {
  try {
    new URL(url);
  } catch {
    throw new UsageError(`Not a URL: '${url}'.`);
  }
  checkWebhookSecret(options.secret);
  if (options.cursor !== undefined && options.task === undefined)
    throw new UsageError("--cursor needs --task: only one task's log (task.events) can be replayed.");
  if (client.events === undefined)
    throw new ServerError(
      'The server does not advertise the Events extension (io.modelcontextprotocol/events): it sends no webhooks.',
    );
  const subscription = await client.events.subscribe({
    name: options.task !== undefined ? TASK_EVENTS : TASKS_UPDATED,
    arguments: options.task !== undefined ? { taskId: options.task } : {},
    url,
    secret: options.secret,
    ...(options.cursor !== undefined ? { cursor: options.cursor } : {}),
    ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}),
  });
  if (output.json) output.out(JSON.stringify({ subscription }));
  else {
    output.out(renderSubscription(subscription));
    output.err(`Subscribe again with the same URL, secret and --task before ${subscription.refreshBefore} to keep it.`);
  }
  return EXIT.ok;
}
