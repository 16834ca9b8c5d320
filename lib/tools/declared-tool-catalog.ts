// The endpoint's declared tool catalog (the tools addTool registered), written at deploy time as one item of the task
// table by an AwsCustomResource, CloudFormation filling in the state machine (and durable function) ARNs. The MCP
// function's environment names only the item's key, so the number of tools is not bounded by Lambda's 4 KB
// environment. The key is versioned by the catalog's content at synth, so a changed catalog is a new item (and a new
// function configuration): the update's clean-up deletes the previous version's item.
import { createHash } from 'node:crypto';
import { Lazy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { ENV } from '../../lambda/contract/environment-names.js';
import {
  DECLARED_CATALOG_ATTRIBUTE,
  declaredCatalogKey,
  packToolDescriptions,
} from '../../lambda/contract/declared-tool-catalog.js';
import { PARTITION_KEY } from '../../lambda/contract/task-table-schema.js';
import { awaitCustomResourceLogGroup } from '../operations/custom-resource-log-group.js';
import type { McpToolProps } from '../props/mcp-task-endpoint-props.js';
import { acknowledgeCustomResourceProvider } from '../operations/nag-acknowledgements.js';

export interface DeclaredToolCatalogProps {
  readonly table: dynamodb.ITable;
  /** The endpoint's tools, appended to after construction: the item is produced when synth resolves it. */
  readonly tools: readonly McpToolProps[];
}

/** What the custom resource may do: write and delete items of the task table, nothing else. */
export const DECLARED_CATALOG_ACTIONS = ['dynamodb:PutItem', 'dynamodb:DeleteItem'] as const;

export class DeclaredToolCatalog extends Construct {
  /** The item's key: literal at synth (`catalog#declared#<sha256>`), for the MCP function's environment. */
  public readonly key: string;
  /**
   * Per tool, in the order of `tools` (appended to alike, by the tool registrations): its machine, or its wrapper and
   * EXPRESS machine (see stateMachineEntry), or a durable tool's function version or alias.
   */
  public readonly machineEntries: string[] = [];
  /** Puts the item on create and update, deletes it on delete (of the stack, or of a previous version). */
  public readonly resource: cr.AwsCustomResource;

  constructor(scope: Construct, id: string, props: DeclaredToolCatalogProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Synth resolves the tokens below several times; tools are only ever appended, so their count keys the cache.
    let current: { readonly toolCount: number; readonly packed: string; readonly key: string } | undefined;
    const catalog = () => {
      if (current?.toolCount !== props.tools.length) {
        const packed = packToolDescriptions(
          props.tools.map(
            ({ stateMachine: _machine, stateMachineType: _type, durableFunction: _function, ...description }) =>
              description,
          ),
        );
        // The ARNs are tokens at synth: their logical form ({ Ref }, { Fn::GetAtt }) stands for them in the version,
        // with what replaces a machine under the same logical ID (its name or type), which gives it a new ARN.
        const replacedBy = props.tools.map(({ stateMachine }) => replacementProperties(stateMachine));
        const logical = JSON.stringify(stack.resolve({ packed, stateMachines: this.machineEntries, replacedBy }));
        const version = createHash('sha256').update(logical).digest('hex');
        current = { toolCount: props.tools.length, packed, key: declaredCatalogKey(version) };
      }
      return current;
    };
    // Produced afresh at each resolution (not cached), so tools added after any early resolution still count.
    this.key = Lazy.uncachedString({ produce: () => catalog().key });
    const key = { [PARTITION_KEY]: { S: this.key } };
    const put: cr.AwsSdkCall = {
      service: 'DynamoDB',
      action: 'PutItem',
      parameters: {
        TableName: props.table.tableName,
        Item: {
          ...key,
          [DECLARED_CATALOG_ATTRIBUTE.tools]: { S: Lazy.uncachedString({ produce: () => catalog().packed }) },
          [DECLARED_CATALOG_ATTRIBUTE.stateMachines]: {
            S: Lazy.uncachedString({ produce: () => this.machineEntries.join(',') }),
          },
        },
      },
      // A new key is a new physical resource: CloudFormation then deletes the old one, with its old key.
      physicalResourceId: cr.PhysicalResourceId.of(this.key),
    };
    this.resource = new cr.AwsCustomResource(this, 'Resource', {
      onCreate: put,
      onUpdate: put,
      onDelete: {
        service: 'DynamoDB',
        action: 'DeleteItem',
        parameters: { TableName: props.table.tableName, Key: key },
      },
      policy: cr.AwsCustomResourcePolicy.fromStatements([
        new iam.PolicyStatement({ actions: [...DECLARED_CATALOG_ACTIONS], resources: [props.table.tableArn] }),
      ]),
      // The SDK in the provider's runtime has PutItem and DeleteItem; installing the latest would add minutes to a
      // deployment and a download from npm.
      installLatestAwsSdk: false,
    });
    // A table under a customer managed key: the item is written under it.
    props.table.encryptionKey?.grantEncryptDecrypt(this.resource);
    acknowledgeCustomResourceProvider(this);
    awaitCustomResourceLogGroup(this);
  }

  /** Tells `fn` the catalog's key, and has CloudFormation write the item before it creates or updates `fn`. */
  public servedBy(fn: lambda.Function): void {
    fn.addEnvironment(ENV.toolCatalogItem, this.key);
    // The key is literal in the function's configuration, so no reference orders the write before it.
    fn.node.addDependency(this);
  }
}

/**
 * The properties of a machine made in this app whose change replaces it (a new ARN under the same logical ID). A
 * durable tool has none: a new version or alias of its function is a new ARN in its entry.
 */
function replacementProperties(machine: sfn.IStateMachine | string | undefined): unknown {
  if (machine === undefined || typeof machine === 'string') return null;
  const cfn = machine.node.defaultChild;
  return cfn instanceof sfn.CfnStateMachine
    ? { name: cfn.stateMachineName ?? null, type: cfn.stateMachineType ?? null }
    : null;
}
