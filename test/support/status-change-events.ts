// Step Functions status-change events as EventBridge delivers them, for tests that drive the status-sync handler.
import { randomUUID } from 'node:crypto';
import type { TaskRecord } from '../../lambda/core/task.js';
import { EXECUTION_STATUS_CHANGE } from '../../lambda/contract/execution-status-events.js';
import type {
  ExecutionStatusChangeDetail,
  ExecutionStatusChangeEvent,
} from '../../lambda/handlers/execution-status-event.js';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../../local/local-aws.js';

/** An event for the task's execution, shaped as EventBridge delivers it from Step Functions (STANDARD machine). */
export function statusEvent(
  task: TaskRecord,
  detail: Partial<ExecutionStatusChangeDetail> & Pick<ExecutionStatusChangeDetail, 'status'>,
): ExecutionStatusChangeEvent {
  const name = task.executionArn.split(':').at(-1)!;
  const stateMachineArn = task.executionArn.replace(':execution:', ':stateMachine:').replace(`:${name}`, '');
  const finished = detail.status !== 'RUNNING' && detail.status !== 'PENDING_REDRIVE';
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': EXECUTION_STATUS_CHANGE,
    source: 'aws.states',
    account: LOCAL_ACCOUNT,
    time: new Date().toISOString(),
    region: LOCAL_REGION,
    resources: [task.executionArn],
    detail: {
      executionArn: task.executionArn,
      stateMachineArn,
      name,
      startDate: task.createdAt,
      stopDate: finished ? task.createdAt + 1_000 : null,
      input: '{"text":"Status events push task state into DynamoDB."}',
      inputDetails: { included: true },
      output: null,
      outputDetails: finished ? { included: true } : null,
      error: null,
      cause: null,
      redriveCount: 0,
      redriveDate: null,
      redriveStatus: finished ? 'REDRIVABLE' : 'NOT_REDRIVABLE',
      redriveStatusReason: finished ? null : 'Execution is RUNNING and cannot be redriven',
      stateMachineVersionArn: null,
      stateMachineAliasArn: null,
      ...detail,
    } as ExecutionStatusChangeDetail,
  };
}
