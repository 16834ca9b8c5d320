// The task table's change stream, record by record into the projector (events/task-event-projector.ts): the Lambda's
// DynamoDB event source mapping calls it in AWS, and the local stack's stream poller does the same locally. Records
// are handled in order; the first that fails is reported with every later one (ReportBatchItemFailures), so the
// mapping retries from it and no change of a task overtakes an earlier one.
import type { AttributeValue as StreamAttributeValue, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Logger } from '../core/logger.js';
import type { TaskEventProjector } from '../events/task-event-projector.js';

type StreamImage = Record<string, StreamAttributeValue> | undefined;

function itemOf(image: StreamImage): Record<string, unknown> | undefined {
  // The stream's attribute values are DynamoDB's JSON, the same shape the SDK unmarshalls.
  return image === undefined ? undefined : unmarshall(image as Record<string, AttributeValue>);
}

export function createTaskEventStreamHandler(
  projector: TaskEventProjector,
  logger: Logger,
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  return async (event) => {
    for (const record of event.Records) {
      const position = record.dynamodb?.SequenceNumber;
      const kind = record.eventName;
      if (position === undefined || kind === undefined) continue;
      try {
        await projector.project({
          kind,
          position,
          ...(record.dynamodb?.OldImage ? { oldItem: itemOf(record.dynamodb.OldImage) } : {}),
          ...(record.dynamodb?.NewImage ? { newItem: itemOf(record.dynamodb.NewImage) } : {}),
        });
      } catch (error) {
        logger.warn('Task change not projected; the stream retries from it', {
          position,
          error: error instanceof Error ? error.message : String(error),
        });
        return { batchItemFailures: [{ itemIdentifier: position }] };
      }
    }
    return { batchItemFailures: [] };
  };
}
