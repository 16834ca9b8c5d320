// npm start's tool discovery as an operator meets it: the local stack's refresher on its timer, over the shared Step
// Functions emulator and its own Schema Registry stand-in. A machine whose schema tag names a schema there is none of
// is warned about once however many refreshes see it, and `mcp-tasks discovery` (the CLI bundle, reading the task
// table with AWS credentials, not through MCP) lists it with why it is not a tool, beside the tool the example became,
// while an MCP client of the same table is never shown it.
import { randomUUID } from 'node:crypto';
import { CreateStateMachineCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { DISCOVERY_TAGS } from '../../lambda/contract/discovery-selection.js';
import { DynamoDbDiscoveredCatalog } from '../../lambda/store/dynamodb-discovered-catalog.js';
import { startLocalDiscovery, type LocalDiscovery } from '../../local/discovery-stack.js';
import { localAwsEnvironment } from '../../local/local-aws.js';
import { buildCliBundle, runCli } from '../support/cli-process.js';
import { RecordingLogger } from '../support/in-memory-backend.js';
import {
  connectClient,
  createTestTable,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  startTestServer,
} from '../support/local-backend.js';

const MACHINE = `bad-schema-${randomUUID().slice(0, 8)}`;
/** A schema ARN in a registry the stand-in does not hold: DescribeSchema answers NotFoundException. */
const MISSING_SCHEMA = 'arn:aws:schemas:us-east-1:000000000000:schema/no-such-registry/NoSuchSchema';
const NOT_A_TOOL = 'State machine not made a tool';

const { stepFunctions, dynamoDb } = localAwsClients();
const logger = new RecordingLogger();
let tableName: string;
let discovery: LocalDiscovery;
let machineArn: string;
let bundle: string;
let disposeBundle: () => Promise<void>;

beforeAll(async () => {
  tableName = await createTestTable();
  ({ bundle, dispose: disposeBundle } = await buildCliBundle());
  ({ stateMachineArn: machineArn = '' } = await stepFunctions.send(
    new CreateStateMachineCommand({
      name: MACHINE,
      definition: JSON.stringify({ StartAt: 'Done', States: { Done: { Type: 'Pass', End: true } } }),
      roleArn: 'arn:aws:iam::000000000000:role/local',
      tags: [
        { key: 'mcp:tool', value: 'true' },
        { key: DISCOVERY_TAGS.inputSchemaArn, value: MISSING_SCHEMA },
      ],
    }),
  ));
  // npm start refreshes every 5 s; a short interval lets several refreshes pass within the test.
  discovery = await startLocalDiscovery({
    stepFunctions,
    dynamoDb,
    tableName,
    reservedNames: new Set(exampleTools().map((tool) => tool.name)),
    intervalMs: 200,
    logger,
  });
});
afterAll(async () => {
  await discovery?.stop();
  await disposeBundle?.();
});

describe('a machine tagged with a schema ARN that names no schema', () => {
  it('is warned about once across several refreshes', async () => {
    const store = new DynamoDbDiscoveredCatalog({ client: DynamoDBDocumentClient.from(dynamoDb), tableName });
    // Each refresh rewrites the report with its own time: four of them, each of which saw the machine.
    const refreshes = new Set<number>();
    await vi.waitUntil(async () => {
      const report = await store.readReport();
      if (report?.machines.some((machine) => machine.arn === machineArn)) refreshes.add(report.refreshedAt);
      return refreshes.size >= 4;
    }, GENEROUS_WAIT);
    const warnings = logger.records.filter(
      (record) => record.message === NOT_A_TOOL && record.extra['arn'] === machineArn,
    );
    expect(warnings).toEqual([
      {
        level: 'warn',
        message: NOT_A_TOOL,
        extra: {
          arn: machineArn,
          reason: `the registry schema its tag ${DISCOVERY_TAGS.inputSchemaArn} names could not be read`,
        },
      },
    ]);
  });

  it('is listed by mcp-tasks discovery with why it is not a tool, beside the tool the example machine became', async () => {
    const env = localAwsEnvironment({
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      stepFunctionsEndpoint: inject('stepFunctionsEndpoint'),
    });
    const run = await runCli(bundle, ['discovery', '--table', tableName], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Refresh of \S+Z: \d+ machines looked at; tools: \d+\.$/);
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^${MACHINE} +not a tool: the registry schema its tag mcp:input-schema-arn names could not be read$`,
        ),
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^greet-discovered +tool greet-discovered$/));

    const json = await runCli(bundle, ['--json', 'discovery'], { ...env, MCP_TASKS_TABLE: tableName });
    expect(JSON.parse(json.stdout)).toMatchObject({
      report: {
        machines: expect.arrayContaining([
          { arn: machineArn, name: MACHINE, reason: expect.stringContaining('could not be read') },
        ]),
        omitted: expect.any(Number),
        refreshedAt: expect.any(Number),
      },
    });
  });

  it('is nowhere in what an MCP client of the same table is shown', async () => {
    const server = await startTestServer({}, { tableName, discoveredTools: true });
    const client = await connectClient(server.url);
    try {
      const shown = JSON.stringify([await client.listTools(), await client.listResources()]);
      expect(shown).toContain('greet-discovered');
      expect(shown).not.toContain(MACHINE);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('names the table when it holds no report, and exits 2', async () => {
    const env = localAwsEnvironment({
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      stepFunctionsEndpoint: inject('stepFunctionsEndpoint'),
    });
    const empty = await createTestTable();
    const run = await runCli(bundle, ['discovery', '--table', empty], env);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(new RegExp(`^Table '${empty}' holds no discovery report`));
  });
});
