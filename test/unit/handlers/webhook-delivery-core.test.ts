// The SQS side of webhook delivery, without AWS: the delivery function's work on a batch (batch item failures, FIFO
// group blocking, the visibility change of a retry, a malformed body) with a scripted deliverer, and the queue adapter
// that sends deliveries (batches, group and deduplication IDs, a partial failure) with a recording SQS client; and the
// function entry's reading of its environment.
import { createHash } from 'node:crypto';
import type { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import type { Deliverer, DeliveryOutcome, WebhookDelivery } from '../../../lambda/events/delivery-queue.js';
import { deduplicationIdOf, SqsDeliveryQueue } from '../../../lambda/handlers/sqs-delivery-queue.js';
import {
  createWebhookDeliveryHandler,
  deliveryOf,
  MAX_VISIBILITY_SECONDS,
} from '../../../lambda/handlers/webhook-delivery-core.js';

interface LogRecord {
  readonly level: string;
  readonly message: string;
  readonly extra: Record<string, unknown>;
}

function collectingLogger() {
  const logs: LogRecord[] = [];
  const at = (level: string) => (message: string, extra: Record<string, unknown>) =>
    logs.push({ level, message, extra });
  return { logs, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

function delivery(group: string, id: string): WebhookDelivery {
  return { owner: 'alice', subscriptionId: 'sub_1', webhookId: id, groupKey: group, body: `{"id":"${id}"}` };
}

function record(each: WebhookDelivery | string, receiveCount = 1, group?: string): SQSRecord {
  const body = typeof each === 'string' ? each : JSON.stringify(each);
  const id = typeof each === 'string' ? `raw-${body.length}` : each.webhookId;
  return {
    messageId: `m-${id}`,
    receiptHandle: `rh-${id}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: '0',
      SenderId: 'sender',
      ApproximateFirstReceiveTimestamp: '0',
      MessageGroupId: group ?? (typeof each === 'string' ? 'g-raw' : each.groupKey),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:deliveries.fifo',
    awsRegion: 'eu-west-1',
  };
}

/** A deliverer answering by webhook ID (delivered when not listed), recording `id#attempt`. */
function scripted(outcomes: Record<string, DeliveryOutcome | Error> = {}): Deliverer & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async deliver(each, attempt) {
      calls.push(`${each.webhookId}#${attempt}`);
      const outcome = outcomes[each.webhookId];
      if (outcome instanceof Error) throw outcome;
      return outcome ?? { kind: 'delivered' };
    },
  };
}

function visibility(failing = false) {
  const changes: [string, number][] = [];
  return {
    changes,
    sqs: {
      async changeVisibility(receiptHandle: string, seconds: number) {
        changes.push([receiptHandle, seconds]);
        if (failing) throw new Error('throttled');
      },
    },
  };
}

const event = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
const failures = (...ids: string[]) => ({ batchItemFailures: ids.map((id) => ({ itemIdentifier: `m-${id}` })) });

describe('createWebhookDeliveryHandler', () => {
  it('reports no failure when every delivery is delivered or dropped, passing the receive count', async () => {
    const deliverer = scripted({ b: { kind: 'dropped', reason: 'subscription gone' } });
    const { sqs, changes } = visibility();
    const handle = createWebhookDeliveryHandler({ deliverer, sqs, logger: collectingLogger().logger });
    const response = await handle(event(record(delivery('g1', 'a'), 1), record(delivery('g2', 'b'), 4)));
    expect(response).toEqual(failures());
    expect(deliverer.calls).toEqual(['a#1', 'b#4']);
    expect(changes).toEqual([]);
  });

  it('hides a delivery to retry for its backoff, rounded up to seconds, and reports it failed', async () => {
    const deliverer = scripted({ a: { kind: 'retry', afterMs: 1_920, category: 'http_5xx' } });
    const { sqs, changes } = visibility();
    const handle = createWebhookDeliveryHandler({ deliverer, sqs, logger: collectingLogger().logger });
    expect(await handle(event(record(delivery('g1', 'a'), 2)))).toEqual(failures('a'));
    expect(changes).toEqual([['rh-a', 2]]);
  });

  it(`caps the visibility change at ${MAX_VISIBILITY_SECONDS} s, SQS's longest`, async () => {
    const deliverer = scripted({ a: { kind: 'retry', afterMs: 50 * 3_600_000, category: 'timeout' } });
    const { sqs, changes } = visibility();
    const handle = createWebhookDeliveryHandler({ deliverer, sqs, logger: collectingLogger().logger });
    await handle(event(record(delivery('g1', 'a'))));
    expect(changes).toEqual([['rh-a', MAX_VISIBILITY_SECONDS]]);
  });

  it('fails every later message of a failed group without an attempt, making it visible again, and goes on with other groups', async () => {
    const deliverer = scripted({ a: { kind: 'retry', afterMs: 8_000, category: 'http_5xx' } });
    const { sqs, changes } = visibility();
    const handle = createWebhookDeliveryHandler({ deliverer, sqs, logger: collectingLogger().logger });
    const response = await handle(
      event(
        record(delivery('g1', 'a')),
        record(delivery('g1', 'b')),
        record(delivery('g2', 'c')),
        record(delivery('g1', 'd')),
        record(delivery('g2', 'e')),
      ),
    );
    expect(response).toEqual(failures('a', 'b', 'd'));
    expect(deliverer.calls).toEqual(['a#1', 'c#1', 'e#1']);
    expect(changes).toEqual([
      ['rh-a', 8],
      ['rh-b', 0],
      ['rh-d', 0],
    ]);
  });

  it('logs and drops a body that is no delivery, without blocking its group', async () => {
    const deliverer = scripted();
    const { sqs } = visibility();
    const { logger, logs } = collectingLogger();
    const handle = createWebhookDeliveryHandler({ deliverer, sqs, logger });
    const malformed = [
      'not json',
      JSON.stringify({ owner: 'alice', subscriptionId: 'sub_1', webhookId: 'x', groupKey: 'g1' }),
      JSON.stringify({ ...delivery('g1', 'x'), body: 42 }),
      'null',
    ];
    const response = await handle(
      event(...malformed.map((body) => record(body, 1, 'g1')), record(delivery('g1', 'after'))),
    );
    expect(response).toEqual(failures());
    expect(deliverer.calls).toEqual(['after#1']);
    expect(logs.filter((log) => log.level === 'error')).toHaveLength(malformed.length);
  });

  it('reports a delivery that throws as failed, without a visibility change, blocking its group', async () => {
    const deliverer = scripted({ a: new Error('DynamoDB unavailable') });
    const { sqs, changes } = visibility();
    const { logger, logs } = collectingLogger();
    const handle = createWebhookDeliveryHandler({ deliverer, sqs, logger });
    const response = await handle(
      event(record(delivery('g1', 'a'), 3), record(delivery('g1', 'b')), record(delivery('g2', 'c'))),
    );
    expect(response).toEqual(failures('a', 'b'));
    expect(deliverer.calls).toEqual(['a#3', 'c#1']);
    expect(changes).toEqual([['rh-b', 0]]);
    expect(logs.find((log) => log.level === 'error')?.extra).toMatchObject({ webhookId: 'a', receive: 3 });
  });

  it('still reports a retry failed when the visibility change fails', async () => {
    const deliverer = scripted({ a: { kind: 'retry', afterMs: 2_000, category: 'timeout' } });
    const { sqs } = visibility(true);
    const { logger, logs } = collectingLogger();
    const handle = createWebhookDeliveryHandler({ deliverer, sqs, logger });
    expect(await handle(event(record(delivery('g1', 'a'))))).toEqual(failures('a'));
    expect(logs.some((log) => log.level === 'warn')).toBe(true);
  });

  it('takes attempt 1 when the receive count is missing or not a number', async () => {
    const deliverer = scripted();
    const handle = createWebhookDeliveryHandler({
      deliverer,
      sqs: visibility().sqs,
      logger: collectingLogger().logger,
    });
    const odd = record(delivery('g1', 'a'));
    odd.attributes.ApproximateReceiveCount = 'n/a';
    await handle(event(odd));
    expect(deliverer.calls).toEqual(['a#1']);
  });
});

describe('deliveryOf', () => {
  it('reads back what the queue sent', () => {
    expect(deliveryOf(JSON.stringify(delivery('g', 'a')))).toEqual(delivery('g', 'a'));
  });

  it('keeps only the delivery fields', () => {
    expect(deliveryOf(JSON.stringify({ ...delivery('g', 'a'), extra: 1 }))).toEqual(delivery('g', 'a'));
  });

  it('reads back that a delivery ends its subscription, so the slot is freed behind SQS too', () => {
    const ending = { ...delivery('g', 'a'), endsSubscription: true as const };
    expect(deliveryOf(JSON.stringify(ending))).toEqual(ending);
    expect(deliveryOf(JSON.stringify({ ...delivery('g', 'a'), endsSubscription: 'yes' }))).toEqual(delivery('g', 'a'));
  });
});

describe('SqsDeliveryQueue', () => {
  type Input = SendMessageBatchCommand['input'];

  /** An SQS client recording each SendMessageBatch input, answering `fail` for the entries it names. */
  function recordingClient(fail: (input: Input, call: number) => string[] = () => []) {
    const inputs: Input[] = [];
    const client = {
      async send(command: SendMessageBatchCommand) {
        inputs.push(command.input);
        const failedIds = fail(command.input, inputs.length);
        return {
          Successful: (command.input.Entries ?? [])
            .filter((entry) => !failedIds.includes(entry.Id!))
            .map((entry) => ({ Id: entry.Id, MessageId: `mid-${entry.Id}`, MD5OfMessageBody: '' })),
          Failed: failedIds.map((Id) => ({ Id, SenderFault: false, Code: 'InternalError' })),
        };
      },
    } as unknown as SQSClient;
    return { client, inputs };
  }

  it('sends batches of at most 10, in order, each message grouped and deduplicated per delivery', async () => {
    const { client, inputs } = recordingClient();
    const queue = new SqsDeliveryQueue({ client, queueUrl: 'https://sqs.example/123/deliveries.fifo' });
    const deliveries = Array.from({ length: 23 }, (_, index) => delivery(`g${index % 3}`, `evt_t_${index}`));
    await queue.send(deliveries);
    expect(inputs.map((input) => input.Entries?.length)).toEqual([10, 10, 3]);
    expect(inputs.every((input) => input.QueueUrl === 'https://sqs.example/123/deliveries.fifo')).toBe(true);
    const entries = inputs.flatMap((input) => input.Entries ?? []);
    expect(entries.map((entry) => JSON.parse(entry.MessageBody!) as WebhookDelivery)).toEqual(deliveries);
    expect(entries.map((entry) => entry.MessageGroupId)).toEqual(deliveries.map((each) => each.groupKey));
    const first = entries[0]!;
    expect(first.MessageDeduplicationId).toBe(createHash('sha256').update('sub_1\nevt_t_0').digest('hex'));
    expect(new Set(entries.map((entry) => entry.MessageDeduplicationId)).size).toBe(23);
    for (const input of inputs) {
      const ids = (input.Entries ?? []).map((entry) => entry.Id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('derives the deduplication ID from subscription and webhook ID alone', () => {
    const a = deduplicationIdOf({ subscriptionId: 'sub_1', webhookId: 'evt_t_1' });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(deduplicationIdOf({ subscriptionId: 'sub_1', webhookId: 'evt_t_1' })).toBe(a);
    expect(deduplicationIdOf({ subscriptionId: 'sub_2', webhookId: 'evt_t_1' })).not.toBe(a);
  });

  it('cuts a batch short when its bodies together would pass 256 KiB', async () => {
    const { client, inputs } = recordingClient();
    const queue = new SqsDeliveryQueue({ client, queueUrl: 'q' });
    const big = (id: string) => ({ ...delivery('g', id), body: 'x'.repeat(100 * 1024) });
    await queue.send([big('a'), big('b'), big('c'), delivery('g', 'd')]);
    expect(inputs.map((input) => input.Entries?.map((entry) => JSON.parse(entry.MessageBody!).webhookId))).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('sends nothing for no deliveries', async () => {
    const { client, inputs } = recordingClient();
    await new SqsDeliveryQueue({ client, queueUrl: 'q' }).send([]);
    expect(inputs).toEqual([]);
  });

  it('throws naming the refused deliveries when a batch fails in part, and sends no later batch', async () => {
    const { client, inputs } = recordingClient((_input, call) => (call === 1 ? ['2', '5'] : []));
    const queue = new SqsDeliveryQueue({ client, queueUrl: 'q' });
    const deliveries = Array.from({ length: 15 }, (_, index) => delivery('g', `evt_t_${index}`));
    await expect(queue.send(deliveries)).rejects.toThrow(
      'SQS refused 2 of 10 webhook deliveries: evt_t_2 (InternalError), evt_t_5 (InternalError)',
    );
    expect(inputs).toHaveLength(1);
  });
});

describe('the delivery function entry (webhook-delivery.ts)', () => {
  /** The entry module, loaded with the variables the construct sets (it reads them when loaded). */
  async function entry() {
    vi.stubEnv('EVENT_TABLE_NAME', 'events');
    vi.stubEnv('WEBHOOK_SEALING_KEY_SECRET_ARN', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:key');
    vi.stubEnv('WEBHOOK_TRUSTED_CALLBACK_ORIGINS', 'https://hooks.internal, http://10.0.0.5:8080');
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    try {
      return await import('../../../lambda/handlers/webhook-delivery.js');
    } finally {
      vi.unstubAllEnvs();
    }
  }

  it('reads its configuration from the environment', async () => {
    const { webhookDeliveryConfigFromEnvironment } = await entry();
    expect(
      webhookDeliveryConfigFromEnvironment({
        EVENT_TABLE_NAME: 'events',
        WEBHOOK_SEALING_KEY_SECRET_ARN: 'arn:key',
        WEBHOOK_TRUSTED_CALLBACK_ORIGINS: 'https://hooks.internal, http://10.0.0.5:8080',
        WEBHOOK_DELIVERY_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries.fifo',
      }),
    ).toEqual({
      eventTableName: 'events',
      sealingKeySecretArn: 'arn:key',
      trustedOrigins: ['https://hooks.internal', 'http://10.0.0.5:8080'],
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries.fifo',
    });
    expect(() => webhookDeliveryConfigFromEnvironment({ WEBHOOK_SEALING_KEY_SECRET_ARN: 'arn:key' })).toThrow(
      /EVENT_TABLE_NAME is required/,
    );
  });

  it('names the queue of an event source ARN by its URL', async () => {
    const { queueUrlOfArn } = await entry();
    expect(queueUrlOfArn('arn:aws:sqs:eu-west-1:123456789012:deliveries.fifo')).toBe(
      'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries.fifo',
    );
    expect(queueUrlOfArn('arn:aws-cn:sqs:cn-north-1:123456789012:d.fifo')).toBe(
      'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/d.fifo',
    );
    expect(() => queueUrlOfArn('not-an-arn')).toThrow(/not an SQS queue ARN/);
  });

  it('answers an empty event with no failures, calling nothing', async () => {
    const { handler } = await entry();
    expect(await handler({ Records: [] })).toEqual({ batchItemFailures: [] });
  });
});
