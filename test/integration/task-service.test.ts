// The task service over DynamoDB Local and the Step Functions emulator, with faults injected where the
// stand-ins cannot produce them (lost answers, throttling, a crash between the two writes).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { ListExecutionsCommand, SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ExecutionStartError,
  IllegalTransitionError,
  StartOutcomeUnknownError,
  TaskAlreadyExistsError,
  TaskLimitExceededError,
  TaskNotFoundError,
} from '../../lambda/core/errors.js';
import { TaskOrigin, TaskStatus } from '../../lambda/core/task.js';
import { StepFunctionsExecutor } from '../../lambda/executor/step-functions-executor.js';
import type { TaskExecutor } from '../../lambda/executor/task-executor.js';
import { DEFAULT_SETTINGS, type TaskServiceSettings } from '../../lambda/service/settings.js';
import { TaskService, type Logger } from '../../lambda/service/task-service.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import type { TaskStore } from '../../lambda/store/task-store.js';
import { ToolRegistry } from '../../lambda/tools/tool-registry.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import { bind } from '../support/bind-methods.js';
import {
  createTestTable,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  silentLogger,
} from '../support/local-backend.js';

let tableName: string;
beforeAll(async () => {
  tableName = await createTestTable();
});

const realStore = (): TaskStore =>
  new DynamoDbTaskStore({ client: DynamoDBDocumentClient.from(localAwsClients().dynamoDb), tableName });
const realExecutor = (): TaskExecutor => new StepFunctionsExecutor({ client: localAwsClients().stepFunctions });

function service(
  parts: {
    store?: TaskStore;
    executor?: TaskExecutor;
    settings?: Partial<TaskServiceSettings>;
    now?: () => number;
    logger?: Logger;
  } = {},
): TaskService {
  return new TaskService({
    ...(parts.now ? { now: parts.now } : {}),
    store: parts.store ?? realStore(),
    executor: parts.executor ?? realExecutor(),
    tools: new ToolRegistry(exampleTools()),
    settings: { ...DEFAULT_SETTINGS, pollIntervalMs: 100, refreshIntervalMs: 100, ...parts.settings },
    logger: parts.logger ?? silentLogger,
  });
}

const analyze = (owner: string, reviewSeconds = 1) => ({
  owner,
  toolName: 'analyze_documents',
  arguments: { documents: ['one two three'], reviewSeconds },
  origin: TaskOrigin.Mcp20251125,
});

async function executionCount(toolName: string, executionArn: string): Promise<number> {
  const stateMachineArn = exampleTools().find((tool) => tool.name === toolName)!.stateMachineArn;
  const { executions = [] } = await localAwsClients().stepFunctions.send(
    new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }),
  );
  return executions.filter((execution) => execution.executionArn === executionArn).length;
}

describe('TaskService', () => {
  describe('creating a task', () => {
    it('stores the task and starts exactly one execution for it', async () => {
      const task = await service().createTask(analyze('creator'));
      // Submitted until a poll or a status event sees the execution running.
      expect(task.status).toBe('submitted');
      expect(await realStore().get('creator', task.taskId)).toMatchObject({ executionArn: task.executionArn });
      expect(await executionCount('analyze_documents', task.executionArn)).toBe(1);
    });

    it('makes task IDs of at least 128 random bits', async () => {
      const ids = await Promise.all([1, 2, 3].map(async () => (await service().createTask(analyze('ids'))).taskId));
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(new Set(ids).size).toBe(3);
    });

    it('starts nothing when the task cannot be stored', async () => {
      let started = 0;
      const executor = realExecutor();
      const counting: TaskExecutor = {
        ...bind(executor),
        start: async (request) => (started++, executor.start(request)),
      };
      const failingStore: TaskStore = {
        ...bind(realStore()),
        create: async () => Promise.reject(new Error('ProvisionedThroughputExceededException')),
      };
      await expect(
        service({ store: failingStore, executor: counting }).createTask(analyze('no-store')),
      ).rejects.toThrow('ProvisionedThroughputExceeded');
      expect(started).toBe(0);
    });

    it('removes the task when Step Functions refuses the start for good', async () => {
      const refusing: TaskExecutor = {
        ...bind(realExecutor()),
        start: async () => Promise.reject(new ExecutionStartError('StateMachineDoesNotExist', 'configuration')),
      };
      await expect(service({ executor: refusing }).createTask(analyze('refused'))).rejects.toBeInstanceOf(
        ExecutionStartError,
      );
      expect((await realStore().list('refused', { limit: 10 })).tasks).toEqual([]);
    });

    it('refuses at once an input Step Functions will not take, and keeps no task', async () => {
      const create = service().createTask({
        ...analyze('too-big'),
        arguments: { documents: hugeDocuments(), reviewSeconds: 1 },
      });
      await expect(create).rejects.toMatchObject({ name: 'ExecutionStartError', fault: 'input' });
      expect((await realStore().list('too-big', { limit: 10 })).tasks).toEqual([]);
    });

    it('keeps the task when the start answer is lost after the execution started, and the task then completes', async () => {
      const executor = realExecutor();
      const lossy: TaskExecutor = {
        ...bind(executor),
        start: async (request) => (await executor.start(request), Promise.reject(new Error('socket hang up'))),
      };
      const task = await service({ executor: lossy }).createTask(analyze('lossy'));
      const finished = await service().waitForTerminal('lossy', task.taskId, { timeoutMs: 60_000 });
      expect(finished.status).toBe('completed');
      expect(await executionCount('analyze_documents', task.executionArn)).toBe(1);
    });

    it('fails a task whose execution never started once the start grace period has passed', async () => {
      // A crash between the task write and the start looks the same: a task whose execution does not exist.
      const crashing: TaskExecutor = {
        ...bind(realExecutor()),
        start: async () => Promise.reject(new Error('process crashed')),
      };
      const task = await service({ executor: crashing }).createTask(analyze('crashed'));
      const withinGrace = await service({ settings: { startGraceMs: 60_000 } }).waitForTerminal(
        'crashed',
        task.taskId,
        { timeoutMs: 500 },
      );
      expect(withinGrace.status).toBe('submitted');
      const afterGrace = await service({ settings: { startGraceMs: 0 } }).waitForTerminal('crashed', task.taskId, {
        timeoutMs: 10_000,
      });
      expect(afterGrace).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/was not found/) });
    });
  });

  describe('a client-made task ID (SEP-1686)', () => {
    const sepCall = (owner: string, taskId: string, text: string) => ({
      owner,
      toolName: 'text_stats',
      arguments: { text },
      origin: TaskOrigin.Sep1686,
      taskId,
    });

    it('repairs a first attempt that died between its two writes when the same call is retried, with one execution', async () => {
      const crashing: TaskExecutor = {
        ...bind(realExecutor()),
        start: async () => Promise.reject(new Error('process crashed')),
      };
      const first = await service({ executor: crashing }).createTask(sepCall('retrier', 'retry-1', 'same words'));
      expect(await realExecutor().describe(first.executionArn)).toBeNull();
      await expect(service().createTask(sepCall('retrier', 'retry-1', 'same words'))).rejects.toBeInstanceOf(
        TaskAlreadyExistsError,
      );
      expect(await realExecutor().describe(first.executionArn)).not.toBeNull();
      expect(await executionCount('text_stats', first.executionArn)).toBe(1);
    });

    it('stops the execution when the task is cancelled before its start lands', async () => {
      const executor = realExecutor();
      let startedArn = '';
      // The client's cancellation wins the race against the start: it arrives while the start is in flight.
      const racing: TaskExecutor = {
        ...bind(executor),
        start: async (request) => {
          await service().cancelTask('racer', 'race-1');
          const started = await executor.start(request);
          startedArn = started.executionArn;
          return started;
        },
      };
      const analyzeLong = {
        ...sepCall('racer', 'race-1', 'x'),
        toolName: 'analyze_documents',
        arguments: { documents: ['x'], reviewSeconds: 60 },
      };
      await service({ executor: racing }).createTask(analyzeLong);
      expect(await realExecutor().describe(startedArn)).toMatchObject({ status: 'ABORTED' });
    });

    /** A store whose reads fail `failures` times once the task is written (a brief DynamoDB outage). */
    function readsFailingAfterCreate(failures: number): TaskStore & { failed: () => number } {
      const store = realStore();
      let created = false;
      let failed = 0;
      return {
        ...bind(store),
        create: async (task) => {
          await store.create(task);
          created = true;
        },
        get: async (owner, taskId) => {
          if (created && failed < failures) {
            failed++;
            throw new Error('ProvisionedThroughputExceededException');
          }
          return store.get(owner, taskId);
        },
        failed: () => failed,
      };
    }
    const analyzeLong = (owner: string, taskId: string) => ({
      ...sepCall(owner, taskId, 'x'),
      toolName: 'analyze_documents',
      arguments: { documents: ['x'], reviewSeconds: 60 },
    });

    it('keeps the execution running when reading the task right after the start fails briefly', async () => {
      const flaky = readsFailingAfterCreate(2);
      const task = await service({ store: flaky }).createTask(analyzeLong('brief-outage', 'brief-1'));
      expect(await realExecutor().describe(task.executionArn)).toMatchObject({ status: 'RUNNING' });
      expect(flaky.failed()).toBe(2);
      expect((await realStore().get('brief-outage', 'brief-1'))?.status).toBe('submitted');
      await service().cancelTask('brief-outage', 'brief-1');
    });

    it('keeps the execution running when the task cannot be read at all after the start', async () => {
      const down = readsFailingAfterCreate(Number.POSITIVE_INFINITY);
      const task = await service({ store: down }).createTask(analyzeLong('long-outage', 'long-1'));
      expect(await realExecutor().describe(task.executionArn)).toMatchObject({ status: 'RUNNING' });
      expect((await realStore().get('long-outage', 'long-1'))?.status).toBe('submitted');
      await service().cancelTask('long-outage', 'long-1');
    });

    it('gives a task ID used again after deletion a new execution and its own result', async () => {
      const first = await service().createTask(sepCall('reuse', 'again-1', 'one two three'));
      await service().waitForTerminal('reuse', 'again-1', { timeoutMs: 30_000 });
      await service().deleteTask('reuse', 'again-1');
      const second = await service().createTask(sepCall('reuse', 'again-1', 'four'));
      expect(second.executionArn).not.toBe(first.executionArn);
      const done = await service().waitForTerminal('reuse', 'again-1', { timeoutMs: 30_000 });
      expect((await service().resultOf(done))?.structuredContent).toMatchObject({ words: 1 });
    });

    it('never starts the work of a different call that reuses a task ID', async () => {
      const crashing: TaskExecutor = {
        ...bind(realExecutor()),
        start: async () => Promise.reject(new Error('process crashed')),
      };
      const first = await service({ executor: crashing }).createTask(sepCall('reuser', 'reused-1', 'original'));
      await expect(service().createTask(sepCall('reuser', 'reused-1', 'different'))).rejects.toBeInstanceOf(
        TaskAlreadyExistsError,
      );
      expect(await realExecutor().describe(first.executionArn)).toBeNull();
    });
  });

  describe('polling a task', () => {
    it('moves a submitted task to working once its execution is seen running', async () => {
      const task = await service().createTask(analyze('seen-running', 30));
      expect(
        await vi.waitUntil(
          async () => (await service().getTask('seen-running', task.taskId)).status === 'working',
          GENEROUS_WAIT,
        ),
      ).toBe(true);
    });

    it('answers with the stored status while Step Functions is throttling', async () => {
      const throttled: TaskExecutor = {
        ...bind(realExecutor()),
        describe: async () => Promise.reject(new Error('ThrottlingException')),
      };
      const task = await service().createTask(analyze('throttled'));
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect((await service({ executor: throttled }).getTask('throttled', task.taskId)).status).toBe('submitted');
    });

    it('answers with the stored status when recording a status change fails, and records it on a later poll', async () => {
      const task = await service().createTask(analyze('write-fails', 30));
      await vi.waitUntil(
        async () => (await realExecutor().describe(task.executionArn))?.status === 'RUNNING',
        GENEROUS_WAIT,
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
      const failingWrites: TaskStore = {
        ...bind(realStore()),
        update: async () => Promise.reject(new Error('InternalServerError')),
      };
      expect((await service({ store: failingWrites }).getTask('write-fails', task.taskId)).status).toBe('submitted');
      expect((await realStore().get('write-fails', task.taskId))?.status).toBe('submitted');
      await vi.waitUntil(
        async () => (await service().getTask('write-fails', task.taskId)).status === 'working',
        GENEROUS_WAIT,
      );
      await service().cancelTask('write-fails', task.taskId);
    });

    it('describes the execution at once on the first poll, then at most once per refresh interval however many polls arrive at once', async () => {
      let describes = 0;
      let clock = Date.now();
      const now = (): number => clock;
      const executor = realExecutor();
      const counting: TaskExecutor = {
        ...bind(executor),
        describe: async (arn) => (describes++, executor.describe(arn)),
      };
      // Separate service objects stand for separate Lambda instances sharing the table; one clock for all.
      const instances = Array.from({ length: 10 }, () =>
        service({
          executor: counting,
          now,
          store: new DynamoDbTaskStore({
            client: DynamoDBDocumentClient.from(localAwsClients().dynamoDb),
            tableName,
            now,
          }),
          settings: { refreshIntervalMs: 400 },
        }),
      );
      const task = await instances[0]!.createTask(analyze('counted', 30));
      await Promise.all(instances.map((instance) => instance.getTask('counted', task.taskId)));
      expect(describes).toBe(1);
      // A poll may come a quarter interval early (pollRefreshIntervalMs): 300 ms here.
      clock += 299;
      await Promise.all(instances.map((instance) => instance.getTask('counted', task.taskId)));
      expect(describes).toBe(1);
      clock += 1;
      await Promise.all(instances.map((instance) => instance.getTask('counted', task.taskId)));
      expect(describes).toBe(2);
    });

    it('throws TaskNotFoundError for a task of another owner', async () => {
      const task = await service().createTask(analyze('owner-a'));
      await expect(service().getTask('owner-b', task.taskId)).rejects.toBeInstanceOf(TaskNotFoundError);
    });
  });

  describe('cancelling a task', () => {
    it('stops the execution and records cancelled before answering', async () => {
      const task = await service().createTask(analyze('canceller', 60));
      const cancelled = await service().cancelTask('canceller', task.taskId);
      expect(cancelled.status).toBe('cancelled');
      expect(await realExecutor().describe(task.executionArn)).toMatchObject({ status: 'ABORTED' });
    });

    it('refuses to cancel a terminal task, and the task stays as it was', async () => {
      const task = await service().createTask(analyze('late-cancel'));
      await realStore().update(task, { status: TaskStatus.Completed, at: Date.now() });
      await expect(service().cancelTask('late-cancel', task.taskId)).rejects.toBeInstanceOf(IllegalTransitionError);
      expect((await realStore().get('late-cancel', task.taskId))?.status).toBe('completed');
    });

    it('leaves the task cancellable when stopping the execution fails', async () => {
      const broken: TaskExecutor = {
        ...bind(realExecutor()),
        stop: async () => Promise.reject(new Error('ServiceUnavailable')),
      };
      const task = await service().createTask(analyze('retry-cancel', 60));
      await expect(service({ executor: broken }).cancelTask('retry-cancel', task.taskId)).rejects.toThrow(
        'ServiceUnavailable',
      );
      expect((await service().cancelTask('retry-cancel', task.taskId)).status).toBe('cancelled');
    });

    it('a completion that arrives after the cancellation does not undo it', async () => {
      const task = await service().createTask(analyze('race', 60));
      await service().cancelTask('race', task.taskId);
      await expect(realStore().update(task, { status: TaskStatus.Completed, at: Date.now() })).rejects.toBeInstanceOf(
        IllegalTransitionError,
      );
      expect((await service().getTask('race', task.taskId)).status).toBe('cancelled');
    });
  });

  describe('a large result', () => {
    it('is stored once and returned whole, within the DynamoDB item limit', async () => {
      // Close to Step Functions' 256 KB output limit; stored twice (text and structured) it would not fit in 400 KB.
      const output = JSON.stringify({
        rows: Array.from({ length: 2_500 }, (_, index) => ({ index, text: 'x'.repeat(80) })),
      });
      expect(output.length).toBeGreaterThan(240_000);
      const bigOutput: TaskExecutor = {
        ...bind(realExecutor()),
        describe: async () => ({ status: 'SUCCEEDED', output }),
      };
      const task = await service().createTask(analyze('big'));
      const done = await service({
        executor: bigOutput,
        settings: { pollIntervalMs: 1, refreshIntervalMs: 1 },
      }).waitForTerminal('big', task.taskId, { timeoutMs: 10_000 });
      expect(done.status).toBe('completed');
      const result = await service().resultOf(done);
      expect((result?.structuredContent as { rows: unknown[] }).rows).toHaveLength(2_500);
    });
  });

  describe('a plain tool call', () => {
    it('stops the execution when the caller goes away', async () => {
      const executor = realExecutor();
      let startedArn = '';
      const capturing: TaskExecutor = {
        ...bind(executor),
        start: async (request) => ((startedArn = request.executionName), executor.start(request)),
      };
      const gone = new AbortController();
      setTimeout(() => gone.abort(), 300);
      const result = await service({ executor: capturing }).runToCompletion(
        'leaver',
        'analyze_documents',
        { documents: ['x'], reviewSeconds: 60 },
        gone.signal,
      );
      expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/went away/) }] });
      const stateMachineArn = exampleTools().find((tool) => tool.name === 'analyze_documents')!.stateMachineArn;
      expect(await executor.describe(executor.executionArnFor(stateMachineArn, startedArn))).toMatchObject({
        status: 'ABORTED',
      });
    });

    /** A store that records the execution ARN it is given and fails every read from the `healthyReads`+1st on. */
    function storeDyingAfter(healthyReads: number): TaskStore & { executionArn: () => string } {
      const store = realStore();
      let executionArn = '';
      let reads = 0;
      return {
        ...bind(store),
        create: async (task) => ((executionArn = task.executionArn), store.create(task)),
        get: async (owner, taskId) =>
          ++reads > healthyReads ? Promise.reject(new Error('ServiceUnavailable')) : store.get(owner, taskId),
        executionArn: () => executionArn,
      };
    }

    it('stops the execution when the store fails while the call waits', async () => {
      const dying = storeDyingAfter(0);
      await expect(
        service({ store: dying }).runToCompletion('store-dies', 'analyze_documents', {
          documents: ['x'],
          reviewSeconds: 60,
        }),
      ).rejects.toThrow('ServiceUnavailable');
      expect(await realExecutor().describe(dying.executionArn())).toMatchObject({ status: 'ABORTED' });
    });

    it('stops the execution when the store fails as the bound passes', async () => {
      // One read while waiting (the bound is zero), then the cancellation's read fails.
      const dying = storeDyingAfter(1);
      await expect(
        service({ store: dying, settings: { directCallTimeoutMs: 0 } }).runToCompletion(
          'store-dies-late',
          'analyze_documents',
          { documents: ['x'], reviewSeconds: 60 },
        ),
      ).rejects.toThrow('ServiceUnavailable');
      expect(await realExecutor().describe(dying.executionArn())).toMatchObject({ status: 'ABORTED' });
    });

    it('answers at once with a tool error when Step Functions refuses the input', async () => {
      const result = await service().runToCompletion('plain-too-big', 'analyze_documents', {
        documents: hugeDocuments(),
        reviewSeconds: 1,
      });
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: expect.stringMatching(/refused the tool input/) }],
      });
      expect((await realStore().list('plain-too-big', { limit: 10 })).tasks).toEqual([]);
    });

    it('answers at once when the start goes unanswered, with the execution stopped', async () => {
      const executor = realExecutor();
      let executionArn = '';
      const lossy: TaskExecutor = {
        ...bind(executor),
        start: async (request) => (
          (executionArn = (await executor.start(request)).executionArn),
          Promise.reject(new Error('socket hang up'))
        ),
      };
      const call = service({ executor: lossy }).runToCompletion('plain-lossy', 'analyze_documents', {
        documents: ['x'],
        reviewSeconds: 60,
      });
      await expect(call).rejects.toMatchObject({ name: 'StartOutcomeUnknownError', stopped: true });
      expect(await executor.describe(executionArn)).toMatchObject({ status: 'ABORTED' });
    });

    it('answers at once when Step Functions is unreachable, and keeps the task for polls to reconcile', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as { port: number };
      await new Promise((resolve) => closed.close(resolve));
      const unreachable = new StepFunctionsExecutor({
        client: new SFNClient({
          region: LOCAL_REGION,
          credentials: LOCAL_CREDENTIALS,
          endpoint: `http://127.0.0.1:${port}`,
          maxAttempts: 1,
        }),
      });
      const call = service({ executor: unreachable }).runToCompletion('plain-unreachable', 'text_stats', {
        text: 'a b',
      });
      const error = await call.catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(StartOutcomeUnknownError);
      expect(error).toMatchObject({ stopped: false });
      expect(await realStore().get('plain-unreachable', (error as StartOutcomeUnknownError).taskId)).toMatchObject({
        status: 'submitted',
      });
    });

    it('returns the result when the execution finishes within the bound', async () => {
      const result = await service().runToCompletion('plain', 'text_stats', { text: 'a b c' });
      expect(result.structuredContent).toMatchObject({ words: 3 });
    });

    it('stops the execution and says so when the bound passes first', async () => {
      const result = await service({ settings: { directCallTimeoutMs: 500 } }).runToCompletion(
        'bounded',
        'analyze_documents',
        { documents: ['x'], reviewSeconds: 60 },
      );
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: expect.stringMatching(/did not finish within .* was stopped/) }],
      });
    });
  });

  describe('per-owner limits', () => {
    const limited = (parts: Parameters<typeof service>[0] = {}) =>
      service({ ...parts, settings: { maxActiveTasksPerOwner: 2, ...parts.settings } });
    const newOwner = (prefix: string) => `${prefix}-${randomUUID()}`;

    function countingStarts(): { executor: TaskExecutor; started: () => number } {
      let started = 0;
      const executor = realExecutor();
      return {
        executor: { ...bind(executor), start: async (request) => (started++, executor.start(request)) },
        started: () => started,
      };
    }

    it('refuses a task past the active-task limit, and stores and starts nothing for it', async () => {
      const owner = newOwner('at-limit');
      await limited().createTask(analyze(owner, 60));
      await limited().createTask(analyze(owner, 60));
      const { executor, started } = countingStarts();
      const refused = limited({ executor }).createTask(analyze(owner, 60));
      await expect(refused).rejects.toMatchObject({
        name: 'TaskLimitExceededError',
        limit: 'active-tasks',
        max: 2,
        retryAfterSeconds: expect.any(Number),
      });
      expect(started()).toBe(0);
      expect((await realStore().list(owner, { limit: 10 })).tasks).toHaveLength(2);
    });

    it('shares the count between two service instances', async () => {
      const owner = newOwner('shared');
      const [one, two] = [limited(), limited()];
      await one.createTask(analyze(owner, 60));
      await two.createTask(analyze(owner, 60));
      await expect(one.createTask(analyze(owner, 60))).rejects.toBeInstanceOf(TaskLimitExceededError);
      await expect(two.createTask(analyze(owner, 60))).rejects.toBeInstanceOf(TaskLimitExceededError);
    });

    it('frees a slot when a task finishes', async () => {
      const owner = newOwner('finishes');
      const quick = await limited().createTask({
        owner,
        toolName: 'text_stats',
        arguments: { text: 'a b' },
        origin: TaskOrigin.Mcp20251125,
      });
      await limited().createTask(analyze(owner, 60));
      expect((await limited().waitForTerminal(owner, quick.taskId, { timeoutMs: GENEROUS_WAIT.timeout })).status).toBe(
        'completed',
      );
      await expect(limited().createTask(analyze(owner, 60))).resolves.toMatchObject({ status: 'submitted' });
    });

    it('frees a slot when a task is cancelled, and another when one is deleted', async () => {
      const owner = newOwner('withdrawn');
      const first = await limited().createTask(analyze(owner, 60));
      const second = await limited().createTask(analyze(owner, 60));
      await limited().cancelTask(owner, first.taskId);
      const third = await limited().createTask(analyze(owner, 60));
      await expect(limited().createTask(analyze(owner, 60))).rejects.toBeInstanceOf(TaskLimitExceededError);
      await limited().deleteTask(owner, second.taskId);
      await expect(limited().createTask(analyze(owner, 60))).resolves.toMatchObject({ status: 'submitted' });
      expect(third.status).toBe('submitted');
    });

    it('frees a slot that a lost release left held once the owner reaches the limit', async () => {
      const owner = newOwner('leftover');
      await realStore().holdActiveSlot(owner, 'crashed-before-release', 2);
      await realStore().holdActiveSlot(owner, 'swept-unseen', 2);
      await expect(limited().createTask(analyze(owner, 60))).resolves.toMatchObject({ status: 'submitted' });
    });

    it('counts plain tool calls, and refuses one past the limit without starting it', async () => {
      const owner = newOwner('plain-limit');
      await limited({ settings: { maxActiveTasksPerOwner: 1 } }).createTask(analyze(owner, 60));
      const { executor, started } = countingStarts();
      const call = limited({ executor, settings: { maxActiveTasksPerOwner: 1 } }).runToCompletion(owner, 'text_stats', {
        text: 'a',
      });
      await expect(call).rejects.toMatchObject({ name: 'TaskLimitExceededError', limit: 'active-tasks' });
      expect(started()).toBe(0);
    });

    it('refuses creations past the per-minute limit until the next minute, starting nothing', async () => {
      const owner = newOwner('rate');
      const t = Date.now();
      const windowEnd = t - (t % 60_000) + 60_000;
      const rated = (now: number, executor?: TaskExecutor) =>
        service({ now: () => now, settings: { maxTaskCreationsPerMinute: 2 }, ...(executor ? { executor } : {}) });
      const quick = { owner, toolName: 'text_stats', arguments: { text: 'a' }, origin: TaskOrigin.Mcp20251125 };
      await rated(t).createTask(quick);
      await rated(t).createTask(quick);
      const { executor, started } = countingStarts();
      await expect(rated(t, executor).createTask(quick)).rejects.toMatchObject({
        name: 'TaskLimitExceededError',
        limit: 'creations-per-minute',
        retryAfterSeconds: Math.ceil((windowEnd - t) / 1000),
      });
      expect(started()).toBe(0);
      await expect(rated(windowEnd).createTask(quick)).resolves.toMatchObject({ status: 'submitted' });
    });
  });

  describe('the audit trail', () => {
    function capturing(): { logger: Logger; records: unknown[] } {
      const records: unknown[] = [];
      const logger = {
        ...silentLogger,
        info: (message: string, extra: Record<string, unknown>) =>
          void (message === 'audit' && records.push(extra['audit'])),
      };
      return { logger, records };
    }

    it('records created, completed, retrieved and deleted, once each, for a task run to the end', async () => {
      const { logger, records } = capturing();
      const audited = service({ logger });
      const owner = `audit-${randomUUID()}`;
      await audited.createTask({
        owner,
        toolName: 'text_stats',
        arguments: { text: 'a b' },
        origin: TaskOrigin.Sep1686,
        taskId: 'audited',
        requestId: 'req-1',
      });
      const done = await audited.waitForTerminal(owner, 'audited', { timeoutMs: GENEROUS_WAIT.timeout });
      await audited.resultOf(done);
      await audited.deleteTask(owner, 'audited');
      const record = { owner, taskId: 'audited', tool: 'text_stats', requestId: 'req-1' };
      expect(records).toEqual([
        { event: 'task.created', ...record, outcome: 'submitted' },
        { event: 'task.completed', ...record, outcome: 'completed' },
        { event: 'task.retrieved', ...record, outcome: 'completed' },
        { event: 'task.deleted', ...record, outcome: 'completed' },
      ]);
    });

    it('records created and cancelled for a cancelled task, and nothing more when it is polled after', async () => {
      const { logger, records } = capturing();
      const audited = service({ logger });
      const owner = `audit-${randomUUID()}`;
      const task = await audited.createTask(analyze(owner, 60));
      await audited.cancelTask(owner, task.taskId);
      await audited.getTask(owner, task.taskId);
      const record = { owner, taskId: task.taskId, tool: 'analyze_documents' };
      expect(records).toEqual([
        { event: 'task.created', ...record, outcome: 'submitted' },
        { event: 'task.cancelled', ...record, outcome: 'cancelled' },
      ]);
    });
  });
});

/** Documents a tool's schema allows whose JSON is over Step Functions' 256 KiB input limit. */
function hugeDocuments(): string[] {
  return Array.from({ length: 4 }, () => 'x'.repeat(80_000));
}
