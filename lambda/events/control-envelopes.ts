// The webhook bodies that are not events (SEP-3415 "control envelopes"): a top-level `type` tells them apart. Their
// webhook ID is derived from what they are about, not random, so a control envelope queued twice (a repeated stream
// record) is delivered once.
import { createHash } from 'node:crypto';

/** JSON-RPC codes of the Events extension, as the conformance suite's events scenarios use them (docs/protocol.md). */
export const EVENTS_ERROR_CODE = {
  NotFound: -32011,
  Forbidden: -32012,
  ResourceExhausted: -32013,
  Unsupported: -32014,
  CallbackEndpointError: -32015,
} as const;

export interface ControlEnvelope {
  readonly webhookId: string;
  readonly body: string;
}

function envelopeId(type: string, about: string): string {
  return `msg_${type}_${createHash('sha256').update(about).digest('hex').slice(0, 24)}`;
}

/** The subscription has ended because the task it follows is gone. */
export function terminatedEnvelope(taskId: string): ControlEnvelope {
  return {
    webhookId: envelopeId('terminated', taskId),
    body: JSON.stringify({
      type: 'terminated',
      error: {
        code: EVENTS_ERROR_CODE.NotFound,
        message: `Task ${taskId} is gone: its retention ended or it was deleted`,
        data: { kind: 'task', taskId },
      },
    }),
  };
}
