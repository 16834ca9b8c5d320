// Where to connect and as whom, shared by both adapters; and what "this task is unknown" looks like on the wire.

export interface Endpoint {
  /** The MCP endpoint URL (Streamable HTTP). */
  readonly url: string;
  /** A bearer token, sent as `Authorization: Bearer …` when set. */
  readonly token?: string;
}

export const CLIENT_INFO = { name: 'mcp-tasks', version: '0.1.0' } as const;

const INVALID_PARAMS = -32602;

/**
 * Whether a JSON-RPC error says the task does not exist for the caller. Both spec generations answer an unknown,
 * expired or foreign task ID with Invalid params; the message tells it apart from other invalid params (such as
 * cancelling a task that has already finished).
 */
export function isUnknownTaskMessage(code: number, message: string): boolean {
  return code === INVALID_PARAMS && /not found|expired|unknown task|no such task/i.test(message);
}
