// The `requestState` of a plain tools/call that waits on its client's answers (SEP-2322, protocol 2026-07-28): which
// task (so which execution) the call runs, for which tool, and the keys it asked for. It travels through the client,
// so it is signed (HMAC-SHA256, the MCP SDK's codec), bound to its owner, and expires; a tampered, foreign or expired
// state is refused with -32602 before any handler runs.
import { createRequestStateCodec, type RequestStateCodec } from '@modelcontextprotocol/server';

/**
 * What a signed state says. Signed, not encrypted: the client can read it, so it holds nothing the client may not see.
 */
export interface PendingCallState {
  readonly tool: string;
  readonly taskId: string;
  /** The input keys the round asked for: the retry's answers to these (and only these) are delivered. */
  readonly keys: readonly string[];
}

/** How long a client has to answer a round: longer than a person takes with a form, shorter than a task's retention. */
export const REQUEST_STATE_TTL_SECONDS = 3_600;

/** The codec of one owner's states: a state minted for one owner does not verify for another (the SDK's bind tag). */
export function requestStateCodecFor(key: string, owner: string): RequestStateCodec<PendingCallState> {
  return createRequestStateCodec<PendingCallState>({ key, ttlSeconds: REQUEST_STATE_TTL_SECONDS, bind: () => owner });
}
