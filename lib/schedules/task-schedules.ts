// The endpoint's two scheduled functions over the task table: the expiry sweep (stops what expired unread) and the
// reconciler (checks executions whose status news is old), with the props' rates and budget or their defaults.
import type { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { ExecutionReconcilerSchedule } from './execution-reconciler-schedule.js';
import { ExpirySweepSchedule } from './expiry-sweep-schedule.js';
import type { HandlerFunctionProps } from '../handlers/handler-function.js';
import * as defaults from '../props/mcp-task-endpoint-defaults.js';

export interface TaskSchedulesProps extends Pick<HandlerFunctionProps, 'tracing' | 'logRetention' | 'removalPolicy'> {
  readonly table: dynamodb.ITable;
  readonly expirySweepRate?: Duration;
  readonly reconcilerCallsPerSecond?: number;
}

export function createTaskSchedules(
  scope: Construct,
  { expirySweepRate, reconcilerCallsPerSecond, ...common }: TaskSchedulesProps,
): { expirySweep: ExpirySweepSchedule; reconciler: ExecutionReconcilerSchedule } {
  return {
    expirySweep: new ExpirySweepSchedule(scope, 'ExpirySweep', {
      ...common,
      rate: expirySweepRate ?? defaults.DEFAULT_EXPIRY_SWEEP_RATE,
    }),
    reconciler: new ExecutionReconcilerSchedule(scope, 'Reconciler', {
      ...common,
      callsPerSecond: reconcilerCallsPerSecond ?? defaults.DEFAULT_RECONCILER_CALLS_PER_SECOND,
    }),
  };
}
