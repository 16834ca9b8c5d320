// The account's own state machines as tools, without a line of CDK per machine: the catalog refresher (its function,
// run on a schedule and when a machine changes), the least IAM it needs to read the selected machines, and what the
// endpoint's functions may do with those machines' executions. Machines are chosen at run time, so every grant is an
// ARN pattern from the selection's names and prefix, narrowed by the selection's tag where IAM supports it.
import { ArnFormat, Duration, Lazy, Stack, type RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { discoverySelectionProblems, type DiscoverySelection } from '../../lambda/contract/discovery-selection.js';
import { DISCOVERY_ENV, ENV } from '../../lambda/contract/environment-names.js';
import { STEP_FUNCTIONS_EVENT_SOURCE } from '../../lambda/contract/execution-status-events.js';
import { EXECUTION_NAME_PREFIX } from '../../lambda/contract/execution-name.js';
import { HandlerFunction, projectPath } from '../handlers/handler-function.js';
import {
  DEFAULT_DISCOVERY_REFRESH_RATE,
  DISCOVERY_REFRESH_FUNCTION_TIMEOUT,
} from '../props/mcp-task-endpoint-defaults.js';
import { acknowledgeWildcardResource } from '../operations/nag-acknowledgements.js';
import { createStatusRuleMatching } from '../events/status-events.js';
import type { ToolBindingParts } from './tool-bindings.js';

/** Which of the account's state machines become tools, and how broadly the endpoint may reach them. */
export interface DiscoverToolsProps {
  /**
   * Machines whose name starts with this (the awslabs server's STATE_MACHINE_PREFIX); also the ARN pattern every
   * grant is scoped to. With `names`, a machine named either way is selected.
   * @default - no prefix
   */
  readonly namePrefix?: string;
  /** Machines with exactly these names (STATE_MACHINE_LIST). @default - no list */
  readonly names?: readonly string[];
  /**
   * Of the machines the names select (all of them, when neither `names` nor `namePrefix` is given), those carrying
   * this tag (STATE_MACHINE_TAG_KEY / STATE_MACHINE_TAG_VALUE). Also an `aws:ResourceTag` condition on the grants
   * on the machines themselves.
   * @default - no tag: the names alone select
   */
  readonly tag?: { readonly key: string; readonly value: string };
  /**
   * The tag whose value is the ARN of a machine's input schema in the EventBridge Schema Registry
   * (STATE_MACHINE_INPUT_SCHEMA_ARN_TAG_KEY).
   * @default 'mcp:input-schema-arn' (DISCOVERY_TAGS.inputSchemaArn)
   */
  readonly inputSchemaArnTagKey?: string;
  /**
   * How often the catalog is refreshed besides the refreshes a machine change triggers; whole minutes, 1 minute to 1
   * day.
   * @default Duration.minutes(5)
   */
  readonly refreshRate?: Duration;
  /**
   * Lets the MCP function start every state machine in the account and region, not only those the names and tag
   * select. Only for a selection IAM cannot express (names that share no prefix and no tag); the catalog still
   * decides which machines are tools.
   * @default false
   */
  readonly allowAnyStateMachine?: boolean;
}

export interface ToolDiscoveryProps extends DiscoverToolsProps {
  /** The task table: the catalog is one item in it. */
  readonly table: dynamodb.ITable;
  /** The endpoint's functions the discovered machines are bound to. */
  readonly parts: ToolBindingParts;
  /** The tools written in code (addTool), read at synth: a discovered machine never takes one of their names. */
  readonly reservedToolNames: () => readonly string[];
  readonly tracing: boolean;
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** The endpoint's alarm topic: the refresher's alarm notifies it too. @default - an alarm without actions */
  readonly alarmTopic?: sns.ITopic;
}

/** The longest period the refresher's alarm counts failures over: two of them fit in CloudWatch's one-day window. */
const MAX_REFRESH_ALARM_PERIOD = Duration.hours(12);

/**
 * The Step Functions control-plane calls that change what the catalog holds. Step Functions sends no event of its own
 * for them; CloudTrail delivers them to the default event bus as "AWS API Call via CloudTrail" (EventBridge's
 * "AWS Step Functions events" reference), which needs a trail logging management events in the account.
 */
export const MACHINE_CHANGE_EVENT_NAMES: readonly string[] = [
  'CreateStateMachine',
  'DeleteStateMachine',
  'UpdateStateMachine',
  'TagResource',
  'UntagResource',
];

export class ToolDiscovery extends Construct {
  /** Reads the selected machines and writes the discovered tools into the task table. */
  public readonly handler: HandlerFunction;
  public readonly function: lambda.Function;
  /** Runs the refresher every `refreshRate`. */
  public readonly schedule: events.Rule;
  /** Runs the refresher when a machine is created, updated, deleted, tagged or untagged (through CloudTrail). */
  public readonly machineChangeRule: events.Rule;
  /** Pushes the status changes of this backend's executions of the selected machines to status-sync. */
  public readonly statusRule: events.Rule;
  /**
   * Refreshes failed in two refresh periods in a row (Errors of the refresher, each period as long as the refresh
   * rate, at most 12 hours): the discovered tools are not what the account says. A lone failure, which the next
   * refresh mends, does not raise it. Notifies the endpoint's `alarmTopic` when it has one.
   */
  public readonly refreshFailureAlarm: cloudwatch.Alarm;
  /** The state machine ARNs (or ARN patterns) the MCP function may start. */
  public readonly stateMachineArns: readonly string[];
  private readonly selection: DiscoverySelection;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ToolDiscoveryProps,
  ) {
    super(scope, id);
    const { namePrefix, names, tag, inputSchemaArnTagKey } = props;
    this.selection = {
      ...(namePrefix !== undefined ? { namePrefix } : {}),
      ...(names !== undefined ? { names: [...names] } : {}),
      ...(tag !== undefined ? { tag: { key: tag.key, value: tag.value } } : {}),
      ...(inputSchemaArnTagKey !== undefined ? { inputSchemaArnTagKey } : {}),
    };
    this.handler = new HandlerFunction(this, 'Refresher', {
      entry: projectPath('lambda/handlers/tool-catalog-refresh.ts'),
      description: "Refreshes the MCP tools discovered among the account's state machines",
      timeout: DISCOVERY_REFRESH_FUNCTION_TIMEOUT,
      environment: {
        [ENV.tableName]: props.table.tableName,
        [DISCOVERY_ENV.selection]: JSON.stringify(this.selection),
        [DISCOVERY_ENV.reservedToolNames]: Lazy.string({ produce: () => JSON.stringify(props.reservedToolNames()) }),
      },
      // A failed refresh is not retried: it left the catalog as it was, and the next trigger reads the account anew.
      retryAttempts: 0,
      tracing: props.tracing,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.function = this.handler.function;
    const machineNames = selectedMachineNames(props);
    this.grantRefresherReads(machineNames);
    // One conditional PutItem when the tools changed, one UpdateItem of the refresh time when they did not: nothing
    // else.
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resourceArns: [props.table.tableArn],
    });
    props.table.encryptionKey?.grantEncryptDecrypt(this.function);

    // Overlapping refreshes are harmless: each writes a whole catalog read afresh; the next corrects a stale one.
    const refresh = (maxEventAge: Duration) =>
      new targets.LambdaFunction(this.function, { retryAttempts: 2, maxEventAge });
    // A rate EventBridge cannot take is reported with the other problems at synth (see problems()).
    const rate = refreshRateProblem(props.refreshRate)
      ? DEFAULT_DISCOVERY_REFRESH_RATE
      : (props.refreshRate ?? DEFAULT_DISCOVERY_REFRESH_RATE);
    this.schedule = new events.Rule(this, 'Schedule', {
      description: 'Refreshes the discovered MCP tools',
      schedule: events.Schedule.rate(rate),
      targets: [refresh(Duration.minutes(Math.max(1, Math.min(rate.toMinutes({ integral: false }), 60))))],
    });
    this.refreshFailureAlarm = this.createRefreshFailureAlarm(rate);
    this.machineChangeRule = new events.Rule(this, 'MachineChanges', {
      description: 'Refreshes the discovered MCP tools when a state machine is created, updated, deleted or (un)tagged',
      eventPattern: {
        source: [STEP_FUNCTIONS_EVENT_SOURCE],
        detailType: ['AWS API Call via CloudTrail'],
        detail: { eventSource: ['states.amazonaws.com'], eventName: [...MACHINE_CHANGE_EVENT_NAMES] },
      },
      targets: [refresh(Duration.minutes(5))],
    });

    const startable = props.allowAnyStateMachine ? ['*'] : machineNames;
    this.stateMachineArns = startable.map((name) => this.arnOf('stateMachine', name));
    this.grantExecutions(startable);
    this.statusRule = createStatusRuleMatching(this, 'StatusRule', {
      description: 'Step Functions execution status changes of the discovered MCP tools, pushed into the task table',
      stateMachineArns: startable.map((name) =>
        name.endsWith('*')
          ? { prefix: this.arnOf('stateMachine', name.slice(0, -1)) }
          : this.arnOf('stateMachine', name),
      ),
      handler: props.parts.statusSync.function,
      deadLetterQueue: props.parts.statusDeadLetterQueue,
    });
  }

  /** Every problem with the selection and the rate, and each listed name that a tool written in code has. */
  problems(tools: ReadonlyArray<{ readonly name: string }>): string[] {
    const toolNames = tools.map((tool) => tool.name);
    const problems = discoverySelectionProblems(this.selection);
    if (refreshRateProblem(this.props.refreshRate))
      problems.push('discoverTools refreshRate must be a whole number of minutes between 1 minute and 1 day');
    for (const name of this.selection.names ?? [])
      if (toolNames.includes(name))
        problems.push(`discoverTools names '${name}', which is already a tool added with addTool: one name, one tool`);
    return problems;
  }

  private createRefreshFailureAlarm(rate: Duration): cloudwatch.Alarm {
    const period = rate.isUnresolved()
      ? DEFAULT_DISCOVERY_REFRESH_RATE
      : Duration.minutes(Math.min(rate.toMinutes(), MAX_REFRESH_ALARM_PERIOD.toMinutes()));
    const alarm = new cloudwatch.Alarm(this, 'RefreshFailures', {
      alarmDescription:
        'The MCP tool catalog refresher failed in two refresh periods in a row: the discovered tools may be stale ' +
        '(see its log)',
      metric: this.function.metricErrors({ period, statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (this.props.alarmTopic) {
      const action = new cloudwatchActions.SnsAction(this.props.alarmTopic);
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    return alarm;
  }

  /**
   * ListStateMachines has no resource type, so it is granted on `*`. Tags and definitions are read only of the
   * machines the names select; with a tag alone, tags must be read of every machine to find the tagged ones, while the
   * definition is read only of a tagged one (aws:ResourceTag, which the Service Authorization Reference lists for the
   * stateMachine resource type).
   */
  private grantRefresherReads(machineNames: readonly string[]): void {
    const role = this.handler.role;
    iam.Grant.addToPrincipal({ grantee: this.function, actions: ['states:ListStateMachines'], resourceArns: ['*'] });
    acknowledgeWildcardResource(
      role,
      '*',
      'states:ListStateMachines supports no resource-level permission: the refresher lists the account to find the ' +
        'selected machines, and reads nothing of any other.',
    );
    const machines = machineNames.map((name) => this.arnOf('stateMachine', name));
    const reason =
      'Machines are selected at run time by name prefix or tag; the pattern covers only the selection’s names, and ' +
      'definitions only of machines that carry the selection’s tag when one is given.';
    this.grant(role, ['states:ListTagsForResource'], machines, reason);
    this.grant(role, ['states:DescribeStateMachine'], machines, reason, this.tagCondition());
    // A machine's schema-ARN tag may name any registry of the account's region.
    const schemas = this.arnOf('schemas', '*/*');
    iam.Grant.addToPrincipal({ grantee: this.function, actions: ['schemas:DescribeSchema'], resourceArns: [schemas] });
    acknowledgeWildcardResource(
      role,
      schemas,
      'A selected machine names its input schema by a tag holding the schema ARN, in any registry of the region; ' +
        'the refresher only describes schemas, never changes one.',
    );
  }

  /**
   * The MCP function may start the selected machines (StartSyncExecution for EXPRESS ones) and describe, read the
   * history of or stop this backend's executions of them; status-sync may describe those, the expiry sweep stop them.
   * The tag condition goes on the machine grants only: the execution resource type has no aws:ResourceTag key. EXPRESS
   * executions are never described: their plain calls answer synchronously.
   */
  private grantExecutions(machineNames: readonly string[]): void {
    const { mcp, statusSync, expirySweep, reconciler } = this.props.parts;
    const reason =
      'Discovered machines are chosen at run time: the pattern covers only the selection’s machine names (and ' +
      'execution names this backend makes, task-<key>-<nonce>), narrowed by the selection’s tag where IAM allows.';
    const machines = machineNames.map((name) => this.arnOf('stateMachine', name));
    const condition = this.props.allowAnyStateMachine ? undefined : this.tagCondition();
    this.grant(mcp.role, ['states:StartExecution', 'states:StartSyncExecution'], machines, reason, condition);
    const executions = machineNames.map((name) => this.arnOf('execution', `${name}:${EXECUTION_NAME_PREFIX}*`));
    const executionActions = ['states:DescribeExecution', 'states:StopExecution'];
    this.grant(mcp.role, executionActions, executions, reason);
    this.grant(statusSync.role, ['states:DescribeExecution'], executions, reason);
    for (const arn of executions) expirySweep.grantStopExecutions(arn, reason);
    for (const arn of executions) reconciler.grantCheckExecutions(arn, reason);
  }

  private grant(
    role: iam.Role,
    actions: string[],
    resourceArns: string[],
    reason: string,
    conditions?: Record<string, Record<string, unknown>>,
  ): void {
    iam.Grant.addToPrincipal({ grantee: role, actions, resourceArns, ...(conditions ? { conditions } : {}) });
    for (const arn of resourceArns) if (arn.includes('*')) acknowledgeWildcardResource(role, arn, reason);
  }

  private tagCondition(): Record<string, Record<string, string>> | undefined {
    const { tag } = this.props;
    return tag ? { StringEquals: { [`aws:ResourceTag/${tag.key}`]: tag.value } } : undefined;
  }

  private arnOf(service: 'stateMachine' | 'execution' | 'schemas', resourceName: string): string {
    const stack = Stack.of(this);
    if (service === 'schemas') return stack.formatArn({ service: 'schemas', resource: 'schema', resourceName });
    return stack.formatArn({
      service: 'states',
      resource: service,
      resourceName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }
}

/** The selection as machine-name patterns: its prefix (`<prefix>*`) and its names, or `*` when a tag alone selects. */
function selectedMachineNames(selection: DiscoverySelection): string[] {
  const patterns = [
    ...(selection.namePrefix !== undefined ? [`${selection.namePrefix}*`] : []),
    ...(selection.names ?? []),
  ];
  return patterns.length > 0 ? patterns : ['*'];
}

/** Whether EventBridge's rate schedule cannot take `rate` (whole minutes, 1 minute to 1 day). */
function refreshRateProblem(rate: Duration | undefined): boolean {
  return (
    rate !== undefined &&
    !rate.isUnresolved() &&
    !(Number.isInteger(rate.toSeconds() / 60) && rate.toSeconds() >= 60 && rate.toSeconds() <= 24 * 60 * 60)
  );
}
