// The emulator's quota mode, through the real @aws-sdk/client-sfn: a throttled call is answered as AWS answers it,
// so the SDK retries it and then surfaces ThrottlingException. Each test has its own emulator (its own buckets).
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  StartExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepFunctionsQuotaOptions } from '../../local/step-functions/api-quotas.js';
import { startStepFunctionsEmulator, type StepFunctionsEmulator } from '../../local/step-functions/emulator.js';
import { localSfnClient } from '../support/step-functions-emulator.js';

const ROLE_ARN = 'arn:aws:iam::000000000000:role/local-sfn';
const PASS = JSON.stringify({ StartAt: 'P', States: { P: { Type: 'Pass', End: true } } });
/** StartExecution scaled to a bucket of 13 calls and a refill of 3 a second. */
const SCALE = 100;

let emulator: StepFunctionsEmulator | undefined;
const clients: SFNClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await emulator?.close();
  emulator = undefined;
});

function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 0;
  return { now: () => time, advance: (ms) => (time += ms) };
}

async function startWith(quotas: StepFunctionsQuotaOptions): Promise<string> {
  emulator = await startStepFunctionsEmulator({ quotas });
  return emulator.url;
}

/** Leaving out `maxAttempts` keeps the SDK's default retries, which the throttled answers are meant for. */
function client(url: string, maxAttempts?: number): SFNClient {
  const sfn = localSfnClient(url, { maxAttempts });
  clients.push(sfn);
  return sfn;
}

async function machine(sfn: SFNClient): Promise<string> {
  const { stateMachineArn } = await sfn.send(
    new CreateStateMachineCommand({ name: 'quota', roleArn: ROLE_ARN, definition: PASS }),
  );
  return stateMachineArn!;
}

const start = (sfn: SFNClient, stateMachineArn: string) => sfn.send(new StartExecutionCommand({ stateMachineArn }));

/** Starts executions one after another until one is refused; how many were accepted. */
async function drain(sfn: SFNClient, stateMachineArn: string): Promise<number> {
  for (let accepted = 0; accepted < 1_000; accepted++) {
    const refused = await start(sfn, stateMachineArn).then(
      () => false,
      (error: unknown) => (error as Error).name === 'ThrottlingException',
    );
    if (refused) return accepted;
  }
  throw new Error('StartExecution was never throttled');
}

describe('Step Functions emulator quota mode', () => {
  it('accepts a burst of its bucket size, then refuses with ThrottlingException as AWS does', async () => {
    const url = await startWith({ scaleDownBy: SCALE, actions: ['StartExecution'], now: manualClock().now });
    const sfn = client(url, 1);
    const arn = await machine(sfn);
    for (let call = 0; call < 13; call++) await expect(start(sfn, arn)).resolves.toHaveProperty('executionArn');
    const refusal = await start(sfn, arn).catch((error: unknown) => error as Error & { $metadata: object });
    expect(refusal).toMatchObject({ name: 'ThrottlingException', message: 'Rate exceeded' });
    expect(refusal.$metadata).toMatchObject({ httpStatusCode: 400 });
    expect(emulator!.throttledCalls()).toEqual({ StartExecution: 1 });
    expect(emulator!.executionsStarted).toBe(13);
  });

  it('refills at its rate: one more start a third of a second later, none before', async () => {
    const clock = manualClock();
    const url = await startWith({ scaleDownBy: SCALE, actions: ['StartExecution'], now: clock.now });
    const sfn = client(url, 1);
    const arn = await machine(sfn);
    expect(await drain(sfn, arn)).toBe(13);
    clock.advance(300);
    await expect(start(sfn, arn)).rejects.toMatchObject({ name: 'ThrottlingException' });
    clock.advance(40);
    await expect(start(sfn, arn)).resolves.toHaveProperty('executionArn');
    await expect(start(sfn, arn)).rejects.toMatchObject({ name: 'ThrottlingException' });
  });

  it('is retried by the SDK, which surfaces ThrottlingException once its attempts are spent', async () => {
    const url = await startWith({ scaleDownBy: SCALE, actions: ['StartExecution'], now: manualClock().now });
    const sfn = client(url); // the SDK's defaults: standard retries, 3 attempts
    const arn = await machine(sfn);
    await drain(client(url, 1), arn);
    const before = emulator!.throttledCalls()['StartExecution']!;
    const refusal = await start(sfn, arn).catch((error: unknown) => error as Error & { $metadata: object });
    expect(refusal).toMatchObject({ name: 'ThrottlingException', $metadata: { attempts: 3 } });
    expect(emulator!.throttledCalls()['StartExecution']! - before).toBe(3);
  });

  it('lets the SDK retry succeed once the bucket has refilled', async () => {
    const clock = manualClock();
    const url = await startWith({ scaleDownBy: SCALE, actions: ['StartExecution'], now: clock.now });
    const sfn = client(url);
    // Each attempt passes here, inside the SDK's retries: the refill comes between the first attempt and the second.
    let attempts = 0;
    sfn.middlewareStack.add(
      (next) => (args) => {
        if (++attempts === 2) clock.advance(1_000);
        return next(args);
      },
      { step: 'deserialize', name: 'refillBeforeRetry' },
    );
    const arn = await machine(sfn);
    await drain(client(url, 1), arn);
    attempts = 0;
    await expect(start(sfn, arn)).resolves.toHaveProperty('executionArn');
    expect(attempts).toBe(2);
  });

  it('throttles each action on its own bucket, and never an action left out', async () => {
    const url = await startWith({
      scaleDownBy: SCALE,
      actions: ['StartExecution', 'DescribeExecution'],
      now: manualClock().now,
    });
    const sfn = client(url, 1);
    const arn = await machine(sfn);
    const { executionArn } = await start(sfn, arn);
    await drain(sfn, arn);
    // DescribeExecution's own bucket (3 at this scale) is untouched by the starts.
    for (let call = 0; call < 3; call++)
      await expect(sfn.send(new DescribeExecutionCommand({ executionArn }))).resolves.toHaveProperty('status');
    await expect(sfn.send(new DescribeExecutionCommand({ executionArn }))).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    // DescribeStateMachine (a bucket of 2 at this scale) is not in the list.
    for (let call = 0; call < 10; call++)
      await expect(sfn.send(new DescribeStateMachineCommand({ stateMachineArn: arn }))).resolves.toHaveProperty('name');
  });

  it('serves a drained action again once real time has refilled its bucket', async () => {
    const url = await startWith({ scaleDownBy: SCALE, actions: ['StartExecution'] });
    const sfn = client(url, 1);
    const arn = await machine(sfn);
    await drain(sfn, arn);
    let served = false;
    for (let attempt = 0; attempt < 200 && !served; attempt++) {
      served = await start(sfn, arn).then(
        () => true,
        () => false,
      );
      if (!served) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(served).toBe(true);
  });

  it('throttles nothing when quota mode is off', async () => {
    emulator = await startStepFunctionsEmulator();
    const sfn = client(emulator.url, 1);
    const arn = await machine(sfn);
    await Promise.all(Array.from({ length: 50 }, () => start(sfn, arn)));
    expect(emulator.executionsStarted).toBe(50);
    expect(emulator.throttledCalls()).toEqual({});
  });
});
