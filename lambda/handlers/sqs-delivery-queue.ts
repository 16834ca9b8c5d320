// The delivery queue on SQS FIFO: each delivery one message, its group key the message group (so one subscription's
// deliveries about one task are handed over in order, and a retried one holds the rest back), its deduplication ID
// derived from subscription and webhook ID (so a delivery queued twice within five minutes, a redelivered stream
// record say, is one message). Sent in batches, in order, one batch after the other; a batch that fails in part
// throws, so the stream batch that produced it is retried (the copies already sent are dropped as duplicates).
import { createHash } from 'node:crypto';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryQueue, WebhookDelivery } from '../events/delivery-queue.js';

export interface SqsDeliveryQueueOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
}

/** SendMessageBatch's limits: 10 messages, and a payload of 256 KiB for the whole batch. */
export const SQS_BATCH_MAX_MESSAGES = 10;
export const SQS_BATCH_MAX_BYTES = 256 * 1024;

/** SQS FIFO's deduplication ID of a delivery: the same for the same subscription and webhook ID. */
export function deduplicationIdOf(delivery: Pick<WebhookDelivery, 'subscriptionId' | 'webhookId'>): string {
  return createHash('sha256').update(`${delivery.subscriptionId}\n${delivery.webhookId}`).digest('hex');
}

export class SqsDeliveryQueue implements DeliveryQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;

  constructor(options: SqsDeliveryQueueOptions) {
    this.client = options.client;
    this.queueUrl = options.queueUrl;
  }

  async send(deliveries: readonly WebhookDelivery[]): Promise<void> {
    // One batch at a time: a later batch must not land before an earlier one of the same group.
    for (const batch of batchesOf(deliveries)) {
      const entries = batch.map((delivery, index) => ({
        Id: String(index),
        MessageBody: JSON.stringify(delivery),
        MessageGroupId: delivery.groupKey,
        MessageDeduplicationId: deduplicationIdOf(delivery),
      }));
      const result = await this.client.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }));
      const failed = result.Failed ?? [];
      if (failed.length > 0) {
        const which = failed.map((entry) => {
          const delivery = batch[Number(entry.Id)];
          return `${delivery?.webhookId ?? `entry ${entry.Id}`} (${entry.Code ?? 'unknown'})`;
        });
        throw new Error(`SQS refused ${failed.length} of ${batch.length} webhook deliveries: ${which.join(', ')}`);
      }
    }
  }
}

/** The deliveries in order, cut into batches within both of SendMessageBatch's limits. */
function batchesOf(deliveries: readonly WebhookDelivery[]): WebhookDelivery[][] {
  const batches: WebhookDelivery[][] = [];
  let current: WebhookDelivery[] = [];
  let bytes = 0;
  for (const delivery of deliveries) {
    const size = Buffer.byteLength(JSON.stringify(delivery));
    if (current.length === SQS_BATCH_MAX_MESSAGES || (current.length > 0 && bytes + size > SQS_BATCH_MAX_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(delivery);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
