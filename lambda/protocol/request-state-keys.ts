// The HMAC key of plain calls' `requestState` (see request-state), apart from the codec so that configuration can
// check it without bundling the MCP SDK into functions that serve no MCP.
import { randomBytes } from 'node:crypto';

/** The SDK codec refuses keys under 32 bytes. */
export const MIN_REQUEST_STATE_KEY_BYTES = 32;

/**
 * The key of a process that was given none: every instance that may see a retry needs the same key, so a random one
 * serves a single process only (a test, `npm start`); a retry reaching another instance then fails closed (-32602).
 */
export const PROCESS_LOCAL_REQUEST_STATE_KEY = randomBytes(MIN_REQUEST_STATE_KEY_BYTES).toString('base64url');
