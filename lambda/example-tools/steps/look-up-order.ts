// Lambda step of refund_order: looks the order up. A stand-in for an order service: the order's amount and customer
// derive from its ID, so the example runs anywhere without data.
import { createHash } from 'node:crypto';

export interface RefundRequest {
  readonly orderId: string;
  readonly reason?: string;
  readonly approvalTimeoutSeconds?: number;
}

/** How long the approver has, by default: an hour. */
const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 3600;
const CUSTOMERS = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Katherine Johnson'] as const;

export const handler = async (input: RefundRequest) => {
  const digest = createHash('sha256').update(input.orderId).digest();
  return {
    orderId: input.orderId,
    customer: CUSTOMERS[digest[0]! % CUSTOMERS.length]!,
    // 10.00 to 509.99, in cents precision.
    amount: (1000 + (digest.readUInt16BE(1) % 50_000)) / 100,
    currency: 'EUR',
    reason: input.reason ?? 'none given',
    approvalTimeoutSeconds: input.approvalTimeoutSeconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  };
};
