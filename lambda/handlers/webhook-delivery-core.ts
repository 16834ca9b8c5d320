// The webhook delivery function's work on one batch of SQS FIFO messages, without the AWS wiring (webhook-delivery.ts
// composes it): each message is one delivery, handed over with the message's receive count (the deliverer counts the
// receiver's attempts itself, so a receive that fails on the server's side costs none). A delivery delivered or
// dropped is done (its message deleted); one to be tried again is hidden for its backoff (ChangeMessageVisibility) and
// reported as a batch item failure, so it comes back then. FIFO order: once a message of a group fails in this batch,
// every later message of that group is reported failed without an attempt, and made visible again at once (the
// group stays locked while the failed one is hidden, so they come back after it, in order, instead of holding it up
// for the queue's whole visibility timeout). A body that is no delivery is logged and dropped: it would only fail
// forever and hold its group. A delivery that throws (its subscription could not be read, say) fails without a
// visibility change, and costs the receiver no attempt; SQS redrives it to the dead-letter queue after the queue's
// maxReceiveCount, which bounds such failures.
import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Logger } from '../core/logger.js';
import type { Deliverer, WebhookDelivery } from '../events/delivery-queue.js';

/** The one SQS call the handler makes, on the queue the batch came from. */
export interface VisibilityChanger {
  changeVisibility(receiptHandle: string, seconds: number): Promise<void>;
}

export interface WebhookDeliveryHandlerOptions {
  readonly deliverer: Deliverer;
  readonly sqs: VisibilityChanger;
  readonly logger: Logger;
}

/** SQS's longest visibility timeout: 12 hours. */
export const MAX_VISIBILITY_SECONDS = 43_200;

export function createWebhookDeliveryHandler(
  options: WebhookDeliveryHandlerOptions,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const { deliverer, sqs, logger } = options;

  /** Hides the message for `seconds`; a failure leaves it to the queue's visibility timeout, which is only later. */
  async function hide(record: SQSRecord, seconds: number): Promise<void> {
    try {
      await sqs.changeVisibility(record.receiptHandle, seconds);
    } catch (error) {
      logger.warn('Could not change a webhook message visibility', {
        messageId: record.messageId,
        seconds,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  return async (event) => {
    const batchItemFailures: SQSBatchItemFailure[] = [];
    const failedGroups = new Set<string>();
    for (const record of event.Records) {
      const group = record.attributes.MessageGroupId;
      if (group !== undefined && failedGroups.has(group)) {
        batchItemFailures.push({ itemIdentifier: record.messageId });
        await hide(record, 0);
        continue;
      }
      const fail = (): void => {
        batchItemFailures.push({ itemIdentifier: record.messageId });
        if (group !== undefined) failedGroups.add(group);
      };
      const delivery = deliveryOf(record.body);
      if (delivery === null) {
        logger.error('Webhook message is not a delivery; dropped', { messageId: record.messageId, group });
        continue;
      }
      const received = Number(record.attributes.ApproximateReceiveCount);
      const receive = Number.isInteger(received) && received > 0 ? received : 1;
      try {
        const outcome = await deliverer.deliver(delivery, receive);
        if (outcome.kind === 'retry') {
          await hide(record, Math.min(Math.ceil(outcome.afterMs / 1000), MAX_VISIBILITY_SECONDS));
          fail();
        }
      } catch (error) {
        logger.error('Webhook delivery attempt threw; the message will be received again', {
          messageId: record.messageId,
          subscriptionId: delivery.subscriptionId,
          webhookId: delivery.webhookId,
          receive,
          error: error instanceof Error ? error.message : String(error),
        });
        fail();
      }
    }
    return { batchItemFailures };
  };
}

/** The delivery a message body holds, or `null` when it holds none. */
export function deliveryOf(body: string): WebhookDelivery | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object') return null;
  const fields = parsed as Record<string, unknown>;
  const keys = ['owner', 'subscriptionId', 'webhookId', 'groupKey', 'body'] as const;
  if (!keys.every((key) => typeof fields[key] === 'string' && fields[key] !== '')) return null;
  return {
    owner: fields['owner'] as string,
    subscriptionId: fields['subscriptionId'] as string,
    webhookId: fields['webhookId'] as string,
    groupKey: fields['groupKey'] as string,
    body: fields['body'] as string,
    ...(fields['endsSubscription'] === true ? { endsSubscription: true as const } : {}),
  };
}
