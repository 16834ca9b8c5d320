// `mcp-tasks discovery`: what the catalog refresher last decided of each state machine it looked at (the tool it
// became, or why it is none), read straight from the task table with the operator's own AWS credentials. Not an MCP
// request on purpose: which machines were refused, and why, is the account's business, not something to list to every
// MCP client. Loaded only by this command, so the other commands never evaluate the AWS SDK.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbDiscoveredCatalog } from '../lambda/store/dynamodb-discovered-catalog.js';
import { MAX_REPORTED_MACHINES, type DiscoveryReport } from '../lambda/store/discovered-catalog-store.js';
import { CliError, EXIT, ServerError, type ExitCode } from './cli-errors.js';
import type { Output } from './commands.js';

export async function discoveryCommand(output: Output, options: { table: string }): Promise<ExitCode> {
  // Region, credentials and endpoint (AWS_ENDPOINT_URL_DYNAMODB, for npm start's DynamoDB Local) as the AWS CLI finds
  // them.
  const dynamoDb = new DynamoDBClient({});
  try {
    const store = new DynamoDbDiscoveredCatalog({
      client: DynamoDBDocumentClient.from(dynamoDb),
      tableName: options.table,
    });
    const report = await store.readReport().catch((error: unknown) => {
      const name = error instanceof Error ? error.name : 'Error';
      const message = error instanceof Error ? error.message : String(error);
      throw new ServerError(`Cannot read the discovery report from table '${options.table}': ${name}: ${message}`, {
        cause: error,
      });
    });
    if (report === null)
      throw new CliError(
        `Table '${options.table}' holds no discovery report: no catalog refresher has run on it ` +
          '(is discovery deployed, and is this the task table?).',
        EXIT.usage,
      );
    output.out(output.json ? JSON.stringify({ report }) : renderReport(report));
    return EXIT.ok;
  } finally {
    dynamoDb.destroy();
  }
}

/** One line per machine (its name, then its tool or why it is none), under a line saying when the refresh ran. */
export function renderReport(report: DiscoveryReport): string {
  const { machines, omitted } = report;
  const tools = machines.filter((machine) => machine.tool !== undefined).length;
  const when = new Date(report.refreshedAt).toISOString();
  const head = `Refresh of ${when}: ${machines.length + omitted} machines looked at; tools: ${tools}.`;
  const width = Math.max(0, ...machines.map((machine) => machine.name.length));
  const lines = machines.map(
    (machine) =>
      `${machine.name.padEnd(width)}  ` +
      (machine.tool !== undefined ? `tool ${machine.tool}` : `not a tool: ${machine.reason ?? 'no reason given'}`),
  );
  if (omitted > 0)
    lines.push(
      `(${omitted} more not listed: a report keeps what fits one item, up to ${MAX_REPORTED_MACHINES}, refused first)`,
    );
  return [head, ...lines].join('\n');
}
