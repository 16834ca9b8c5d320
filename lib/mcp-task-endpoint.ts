// McpTaskEndpoint: the reusable L3 construct. A team drops it into its stack, registers state machines as MCP tools,
// and gets an authenticated MCP endpoint whose task status is pushed from Step Functions into DynamoDB.
import { Annotations, Arn, ArnFormat, Duration, Lazy, Names, Stack, Token } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { EXECUTION_NAME_PREFIX } from '../lambda/core/task-key.js';
import { ENV } from '../lambda/handlers/environment.js';
import { MCP_HTTP_ENV, packToolCatalog } from '../lambda/handlers/mcp-http-environment.js';
import { OWNER_INDEX } from '../lambda/store/table-schema.js';
import { askStepTask, createAskFunction, grantTaskTokenAnswers, type AskStepProps } from './ask-step.js';
import { CognitoAuth } from './cognito-auth.js';
import { environmentBytesUpperBound, LAMBDA_ENVIRONMENT_LIMIT_BYTES, MAX_STATE_MACHINE_ARN_BYTES, MAX_TOKEN_BYTES } from './function-environment.js';
import { HandlerFunction, projectPath } from './handler-function.js';
import * as defaults from './mcp-task-endpoint-defaults.js';
import type { McpTaskEndpointProps, McpToolProps } from './mcp-task-endpoint-props.js';
import { propsProblems, throwIfProblems, toolProblems, type ToolEnvironment } from './mcp-task-endpoint-validation.js';
import { McpRestApi } from './mcp-rest-api.js';
import { EndpointOperations } from './operations.js';
import { acknowledgeWildcardResource } from './nag-acknowledgements.js';
import { ExpirySweepSchedule } from './expiry-sweep.js';
import { createStatusDeadLetterAlarm, createStatusDeadLetterQueue, createStatusRule } from './status-events.js';
import { createTaskTable } from './task-table.js';
import { createProgressFunction, progressInvoke, type ProgressStepProps } from './progress-step.js';

export type { McpTaskEndpointProps, McpToolProps } from './mcp-task-endpoint-props.js';
export type { AskStepProps } from './ask-step.js';
export type { ProgressStepProps } from './progress-step.js';

const TABLE_ITEM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

export class McpTaskEndpoint extends Construct {
  /** Task ID to execution, status and result; TTL-swept. */
  public readonly table: dynamodb.Table;
  /** Serves MCP (Streamable HTTP) behind the REST API. */
  public readonly mcpFunction: lambda.Function;
  public readonly mcpHandler: HandlerFunction;
  /** Applies Step Functions status events to tasks. */
  public readonly statusSyncFunction: lambda.Function;
  public readonly statusSyncHandler: HandlerFunction;
  public readonly statusDeadLetterQueue: sqs.Queue;
  /**
   * In alarm while the status dead-letter queue holds a message: a status change could not be applied, so a task
   * may only catch up by a poll's refresh. Notifies `alarmTopic` when one is given; add more with `addAlarmAction`.
   */
  public readonly statusDeadLetterAlarm: cloudwatch.Alarm;
  /**
   * Records the progress state machines report on their tasks (see {@link progressStep}); may update task items only.
   */
  public readonly progressFunction: lambda.Function;
  public readonly progressHandler: HandlerFunction;
  /** Stops the executions of tasks that expired unread, every `expirySweepRate`. */
  public readonly expirySweep: ExpirySweepSchedule;
  public readonly restApi: McpRestApi;
  /** Cognito user pool, clients, domain and authorizer; absent when the endpoint is open. */
  public readonly auth?: CognitoAuth;
  /** The URL MCP clients connect to. */
  public readonly mcpUrl: string;
  /** Records input requests on tasks: the function every ask step invokes (see {@link askStep}). */
  public readonly askHandler: HandlerFunction;
  /** Alarms (API 5xx rate, function errors and throttles, DescribeExecution throttles) and the dashboard. */
  public readonly operations: EndpointOperations;

  private readonly tools: McpToolProps[] = [];
  private readonly rules: events.Rule[] = [];
  private readonly boundMachines = new Set<string>();
  private packed?: { readonly toolCount: number; readonly value: string };
  /** Where the functions run: a registered machine must be in the same account and region. */
  private readonly environment: ToolEnvironment;

  constructor(scope: Construct, id: string, props: McpTaskEndpointProps = {}) {
    super(scope, id);
    throwIfProblems('McpTaskEndpoint props', propsProblems(props));
    const stack = Stack.of(this);
    this.environment = { region: stack.region, account: stack.account };
    const removalPolicy = props.removalPolicy ?? defaults.DEFAULT_REMOVAL_POLICY;
    const logRetention = props.logRetention ?? defaults.DEFAULT_LOG_RETENTION;
    const tracing = props.tracing ?? false;
    const resultWait = props.resultWait ?? defaults.DEFAULT_RESULT_WAIT;
    // The function outlives the longest wait in one request; API Gateway waits as long as the function may run.
    const timeout = Duration.seconds(resultWait.toSeconds() + defaults.FUNCTION_TIMEOUT_MARGIN.toSeconds());

    this.table = createTaskTable(this, 'TaskTable', { removalPolicy, ...(props.tableEncryptionKey ? { encryptionKey: props.tableEncryptionKey } : {}) });
    const common = { tracing, logRetention, removalPolicy };
    this.mcpHandler = new HandlerFunction(this, 'McpHandler', {
      ...common,
      entry: projectPath('lambda/handlers/mcp-http.ts'),
      description: 'MCP endpoint: tools are Step Functions state machines, calls run as tasks',
      timeout,
      memorySize: props.mcpFunctionMemorySize ?? defaults.DEFAULT_MCP_FUNCTION_MEMORY_SIZE,
      ...(props.mcpFunctionReservedConcurrency !== undefined ? { reservedConcurrentExecutions: props.mcpFunctionReservedConcurrency } : {}),
      environment: {
        [ENV.tableName]: this.table.tableName,
        [ENV.resultWaitMs]: String(resultWait.toMilliseconds()),
        // Status changes are pushed by EventBridge; describing an execution on a poll is only the fallback for a missed
        // event.
        [ENV.refreshIntervalMs]: String(defaults.REFRESH_INTERVAL.toMilliseconds()),
        // Produced afresh at each resolution (not cached), so tools added after any early resolution still count.
        [MCP_HTTP_ENV.packedToolCatalog]: Lazy.uncachedString({ produce: () => this.packedCatalog() }),
        [MCP_HTTP_ENV.toolStateMachineArns]: Lazy.uncachedString({ produce: () => this.tools.map((tool) => stateMachineArnOf(tool)).join(',') }),
        ...(props.maxActiveTasksPerOwner !== undefined ? { [ENV.maxActiveTasksPerOwner]: String(props.maxActiveTasksPerOwner) } : {}),
        ...(props.maxTaskCreationsPerMinute !== undefined ? { [ENV.maxTaskCreationsPerMinute]: String(props.maxTaskCreationsPerMinute) } : {}),
        ...(props.openEndpoint ? { [MCP_HTTP_ENV.openEndpointOwner]: defaults.OPEN_ENDPOINT_OWNER } : {}),
        ...(props.corsAllowOrigins?.length ? { [MCP_HTTP_ENV.corsAllowOrigins]: props.corsAllowOrigins.join(',') } : {}),
      },
    });
    this.mcpFunction = this.mcpHandler.function;

    this.statusDeadLetterQueue = createStatusDeadLetterQueue(this, 'StatusDeadLetterQueue');
    this.statusDeadLetterAlarm = createStatusDeadLetterAlarm(this, 'StatusDeadLetterAlarm', this.statusDeadLetterQueue);
    this.statusSyncHandler = new HandlerFunction(this, 'StatusSyncHandler', {
      ...common,
      entry: projectPath('lambda/handlers/status-sync.ts'),
      description: 'Records Step Functions execution status changes on MCP tasks',
      environment: { [ENV.tableName]: this.table.tableName },
      deadLetterQueue: this.statusDeadLetterQueue,
      retryAttempts: defaults.STATUS_FUNCTION_RETRY_ATTEMPTS,
      maxEventAge: defaults.STATUS_EVENT_MAX_AGE,
    });
    this.statusSyncFunction = this.statusSyncHandler.function;
    this.grantTableAccess();
    this.progressHandler = createProgressFunction(this, 'ProgressHandler', { ...common, table: this.table, entry: projectPath('lambda/handlers/report-progress.ts') });
    this.progressFunction = this.progressHandler.function;
    // Input requests (issue 8): the ask function writes the question; the MCP function resumes executions with answers.
    this.askHandler = createAskFunction(this, 'AskHandler', { table: this.table, ...common });
    grantTaskTokenAnswers(this.mcpHandler.function);
    this.expirySweep = new ExpirySweepSchedule(this, 'ExpirySweep', { ...common, table: this.table, rate: props.expirySweepRate ?? defaults.DEFAULT_EXPIRY_SWEEP_RATE });

    if (props.openEndpoint) {
      Annotations.of(this).addWarningV2(
        'mcp-tasks:openEndpoint',
        'openEndpoint is true: the MCP endpoint has no authentication, so anyone with its URL can ' +
          'start your state machines and read every task.',
      );
    } else {
      this.auth = new CognitoAuth(this, 'Auth', {
        removalPolicy,
        ...pick(props, ['existingUserPoolObj', 'userPoolProps', 'cognitoDomainPrefix', 'resourceServerIdentifier', 'oauthCallbackUrls', 'machineClient']),
      });
    }
    this.restApi = new McpRestApi(this, 'Api', {
      handler: this.mcpFunction,
      integrationTimeout: timeout,
      stageName: props.stageName ?? defaults.DEFAULT_STAGE_NAME,
      throttlingRateLimit: props.throttlingRateLimit ?? defaults.DEFAULT_THROTTLING_RATE_LIMIT,
      throttlingBurstLimit: props.throttlingBurstLimit ?? defaults.DEFAULT_THROTTLING_BURST_LIMIT,
      logRetention,
      removalPolicy,
      tracing,
      ...pick(props, ['executionLoggingLevel', 'corsAllowOrigins', 'webAclArn', 'createApiGatewayAccountRole']),
      ...(this.auth ? { auth: this.auth } : {}),
    });
    this.mcpUrl = this.restApi.mcpUrl;
    this.operations = new EndpointOperations(this, 'Operations', {
      serviceName: Names.uniqueResourceName(this, { maxLength: 64 }),
      api: this.restApi.api,
      functions: { mcp: this.mcpFunction, statusSync: this.statusSyncFunction, expirySweep: this.expirySweep.function },
      deadLetterQueue: this.statusDeadLetterQueue,
      deadLetterAlarm: this.statusDeadLetterAlarm,
      ...pick(props, ['dashboard', 'alarmTopic']),
    });

    for (const tool of props.tools ?? []) this.addTool(tool);
    this.node.addValidation({ validate: () => this.synthProblems() });
  }

  /** EventBridge rules pushing execution status, one per registered state machine. */
  public get statusRules(): readonly events.Rule[] {
    return [...this.rules];
  }

  /**
   * A Task state that reports progress on the task its execution runs for: shown as the task's statusMessage and sent
   * to clients waiting with a progressToken. Its input passes through. In a Map, report with `increment`. E.g.
   * `endpoint.progressStep(this, 'Analysed', { message: 'Analysed {progress} of {total}', increment: 1 })`.
   */
  public progressStep(scope: Construct, id: string, props: ProgressStepProps): tasks.LambdaInvoke {
    return progressInvoke(scope, id, this.progressHandler, props);
  }

  /** The registered tools, in registration order. */
  public get registeredTools(): readonly McpToolProps[] {
    return [...this.tools];
  }

  /**
   * Registers a state machine as an MCP tool: it is listed by tools/list, the MCP function may start it and
   * describe or stop its executions, and its status changes are pushed to the task table. Names and machines are
   * checked at synth, all problems reported together.
   */
  public addTool(tool: McpToolProps): this {
    const duplicate = this.tools.some((known) => known.name === tool.name);
    this.tools.push(tool);
    // A duplicate or malformed registration fails synth with the others; binding it now would fail alone, unclearly.
    if (duplicate || toolProblems([tool], this.environment).length > 0) return this;
    const machine = typeof tool.stateMachine === 'string' ? sfn.StateMachine.fromStateMachineArn(this, `Machine-${tool.name}`, tool.stateMachine) : tool.stateMachine;
    const key = JSON.stringify(Stack.of(this).resolve(machine.stateMachineArn));
    if (this.boundMachines.has(key)) return this;
    this.boundMachines.add(key);

    machine.grantStartExecution(this.mcpFunction);
    const executions = executionsOf(machine);
    // GetExecutionHistory: a refresh of a running task reads the state it is in (issue 12).
    iam.Grant.addToPrincipal({ grantee: this.mcpFunction, actions: ['states:DescribeExecution', 'states:GetExecutionHistory', 'states:StopExecution'], resourceArns: [executions] });
    iam.Grant.addToPrincipal({ grantee: this.statusSyncFunction, actions: ['states:DescribeExecution'], resourceArns: [executions] });
    const reason = `Execution names are made per task at run time (task-<key>-<nonce>); the wildcard covers ` +
      `only this backend's executions of the machine behind tool '${tool.name}'.`;
    acknowledgeWildcardResource(this.mcpHandler.role, executions, reason);
    acknowledgeWildcardResource(this.statusSyncHandler.role, executions, reason);
    this.expirySweep.grantStopExecutions(executions, reason);
    this.rules.push(
      createStatusRule(this, `StatusRule-${tool.name}`, { stateMachineArn: machine.stateMachineArn, handler: this.statusSyncFunction, deadLetterQueue: this.statusDeadLetterQueue }),
    );
    return this;
  }

  /**
   * A state that asks a person for input with a form and waits for the answer, for a team's own state machine: the
   * task shows the question (`input_required`) until a client answers it; the state's output at `resultPath` is the
   * answer, `{ action: 'accept' | 'decline' | 'cancel', content }`, for a Choice to branch on.
   */
  public askStep(scope: Construct, id: string, props: AskStepProps): tasks.LambdaInvoke {
    return askStepTask(scope, id, this.askHandler, props);
  }

  /** Synth resolves the environment several times; tools are only ever appended, so their count keys the cache. */
  private packedCatalog(): string {
    if (this.packed?.toolCount !== this.tools.length) {
      this.packed = { toolCount: this.tools.length, value: packToolCatalog(this.tools.map(({ stateMachine: _, ...description }) => description)) };
    }
    return this.packed.value;
  }

  /** Per function, only the item and index actions its code performs. */
  private grantTableAccess(): void {
    iam.Grant.addToPrincipal({ grantee: this.mcpFunction, actions: TABLE_ITEM_ACTIONS, resourceArns: [this.table.tableArn] });
    iam.Grant.addToPrincipal({ grantee: this.mcpFunction, actions: ['dynamodb:Query'], resourceArns: [`${this.table.tableArn}/index/${OWNER_INDEX}`] });
    iam.Grant.addToPrincipal({ grantee: this.statusSyncFunction, actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], resourceArns: [this.table.tableArn] });
    this.table.encryptionKey?.grantEncryptDecrypt(this.mcpFunction);
    this.table.encryptionKey?.grantEncryptDecrypt(this.statusSyncFunction);
  }

  private synthProblems(): string[] {
    const problems = toolProblems(this.tools, this.environment);
    const bytes = environmentBytesUpperBound(this.mcpFunction, (name) => (name === MCP_HTTP_ENV.toolStateMachineArns ? MAX_STATE_MACHINE_ARN_BYTES : MAX_TOKEN_BYTES));
    if (bytes > LAMBDA_ENVIRONMENT_LIMIT_BYTES) {
      problems.push(
        `The tool catalog may not fit the MCP function's environment (up to ${bytes} of ` +
          `${LAMBDA_ENVIRONMENT_LIMIT_BYTES} bytes with ${this.tools.length} tools): shorten ` +
          `descriptions and schemas, or split the tools across two endpoints`,
      );
    }
    return problems;
  }
}

function stateMachineArnOf(tool: McpToolProps): string {
  return typeof tool.stateMachine === 'string' ? tool.stateMachine : tool.stateMachine.stateMachineArn;
}

/**
 * `arn:<partition>:states:<region>:<account>:execution:<machine name>:task-*`: only the executions this backend
 * starts (all named `task-…`), in the machine's own account and region. (The L2's grantExecution puts an imported
 * ARN in the importing stack's account and region, and covers every execution.)
 */
function executionsOf(machine: sfn.IStateMachine): string {
  // Only executions this backend started (see core/task-key): another system's executions of a shared machine stay out
  // of reach.
  const executions = `${EXECUTION_NAME_PREFIX}*`;
  if (machine instanceof sfn.StateMachine) {
    return Stack.of(machine).formatArn({ service: 'states', resource: 'execution', resourceName: `${machine.stateMachineName}:${executions}`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
  }
  if (!Token.isUnresolved(machine.stateMachineArn)) return `${machine.stateMachineArn.replace(':stateMachine:', ':execution:')}:${executions}`;
  const arn = Arn.split(machine.stateMachineArn, ArnFormat.COLON_RESOURCE_NAME);
  return Arn.format({ ...arn, service: 'states', resource: 'execution', resourceName: `${arn.resourceName}:${executions}`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((key) => source[key] !== undefined).map((key) => [key, source[key]])) as Partial<Pick<T, K>>;
}
