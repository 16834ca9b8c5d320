// mcp-tasks: run MCP tools as tasks from a terminal (call now, fetch later). Parses arguments with commander,
// connects with the protocol the server speaks, runs one command, and exits with a code scripts can branch on.
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  cancelCommand,
  callCommand,
  checkQuiet,
  getCommand,
  listCommand,
  resultCommand,
  toolsCommand,
  watchCommand,
  type CallOptions,
  type Output,
} from './commands.js';
import { connectTaskClient, PROTOCOLS, type ProtocolChoice } from './connect.js';
import { CLIENT_INFO } from './endpoint.js';
import { CliError, EXIT, type UsageError } from './cli-errors.js';
import type { TaskClient } from './task-client.js';
import { webhookListenCommand, webhookSubscribeCommand } from './webhook-commands.js';

/** The local stack's endpoint (`npm start`), the default when neither --url nor MCP_TASKS_URL is set. */
const DEFAULT_URL = 'http://127.0.0.1:3000/mcp';

interface GlobalOptions {
  url: string;
  token?: string;
  json?: boolean;
  protocol: ProtocolChoice;
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('must be a positive whole number of milliseconds.');
  return parsed;
}

function portNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535)
    throw new InvalidArgumentError('must be a port number from 0 (any free port) to 65535.');
  return parsed;
}

function outputFor(options: GlobalOptions): Output {
  return {
    json: options.json === true,
    // A person at a terminal: the live line and the Ctrl-C prompt need stdout, stderr and stdin to be terminals.
    interactive:
      options.json !== true &&
      process.stdout.isTTY === true &&
      process.stderr.isTTY === true &&
      process.stdin.isTTY === true,
    ...(process.stdout.isTTY === true && process.stdout.columns > 0 ? { columns: process.stdout.columns } : {}),
    out: (text) => void process.stdout.write(`${text}\n`),
    err: (text) => void process.stderr.write(`${text}\n`),
  };
}

/** Prints an error as one message (or one JSON object under --json) and returns the exit code it ends with. */
function report(error: unknown, output: Output): number {
  const message =
    error instanceof CliError
      ? error.message
      : `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  if (output.json)
    output.out(JSON.stringify({ error: { kind: error instanceof Error ? error.name : 'Error', message } }));
  else output.err(message);
  return error instanceof CliError ? error.exitCode : EXIT.server;
}

/** Connects, runs one command, closes, exits: every command ends here, so every error becomes one message. */
async function run(
  program: Command,
  action: (client: TaskClient, output: Output) => Promise<number>,
  connectOptions: { needsTaskList?: boolean } = {},
): Promise<never> {
  const options = program.opts<GlobalOptions>();
  const output = outputFor(options);
  let code: number;
  let client: TaskClient | undefined;
  try {
    client = await connectTaskClient(
      { url: options.url, ...(options.token ? { token: options.token } : {}) },
      options.protocol,
      connectOptions,
    );
    code = await action(client, output);
  } catch (error) {
    code = report(error, output);
  }
  await client?.close().catch(() => {});
  process.exit(code);
}

/** Runs a command that needs no MCP connection (the webhook receiver), with the same error handling and exit. */
async function runLocal(program: Command, action: (output: Output) => Promise<number>): Promise<never> {
  const output = outputFor(program.opts<GlobalOptions>());
  let code: number;
  try {
    code = await action(output);
  } catch (error) {
    code = report(error, output);
  }
  process.exit(code);
}

/** Resolves on Ctrl-C (or SIGTERM). */
function interrupted(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

export function buildProgram(): Command {
  const program = new Command('mcp-tasks')
    .description('Run MCP tools as tasks from a terminal: call now, fetch the result later.')
    .version(CLIENT_INFO.version)
    .addOption(new Option('--url <url>', 'MCP endpoint (Streamable HTTP)').env('MCP_TASKS_URL').default(DEFAULT_URL))
    .addOption(new Option('--token <token>', 'bearer token sent as Authorization').env('MCP_TASKS_TOKEN'))
    .addOption(
      new Option(
        '--json',
        'print JSON on stdout, for scripts: one object (watch adds a line per event, webhook listen per delivery)',
      ),
    )
    .addOption(
      new Option(
        '--protocol <protocol>',
        'tasks protocol: auto picks the Tasks extension when the server advertises it',
      )
        .choices(PROTOCOLS)
        .default('auto'),
    )
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nExit codes: 0 completed, 1 failed (or the tool reported an error), 2 unknown tool or task / bad usage,\n' +
        '3 cancelled, 4 server or connection error, 130 left running after Ctrl-C.',
    );

  program
    .command('tools')
    .description('list the tools and whether each can run as a task')
    .action(() => run(program, toolsCommand));
  program
    .command('call')
    .description(
      'call a tool as a task; prints the task at once (--quiet: its id alone), or with --wait follows it and prints ' +
        'the result',
    )
    .argument('<tool>', 'tool name')
    .option('--args <json>', 'tool arguments as a JSON object', '{}')
    .option('--wait', 'follow the task live and print its result')
    .option('--ttl <ms>', 'ask the server to keep the task this long after it ends', positiveInteger)
    .option(
      '-q, --quiet',
      'print only the task id on stdout, for id=$(mcp-tasks call ...); not with --wait or --json, ' +
        'and exit 2 (nothing on stdout) for a tool that answers without a task',
    )
    .option('--id-only', 'the same as --quiet')
    .action((tool: string, options: CallOptions & { idOnly?: boolean }) => {
      const { idOnly, ...callOptions } = options;
      const quiet = callOptions.quiet === true || idOnly === true;
      // Refused before connecting, and on stderr even with --json: a script reading the id from stdout gets nothing.
      try {
        checkQuiet({ json: program.opts<GlobalOptions>().json === true }, { ...callOptions, quiet });
      } catch (error) {
        process.stderr.write(`${(error as Error).message}\n`);
        process.exit((error as UsageError).exitCode);
      }
      return run(program, (client, output) => callCommand(client, output, tool, { ...callOptions, quiet }));
    });
  program
    .command('get')
    .description("show a task's status")
    .argument('<taskId>')
    .action((taskId: string) => run(program, (client, output) => getCommand(client, output, taskId)));
  program
    .command('result')
    .description('wait for a task to end and print its result')
    .argument('<taskId>')
    .action((taskId: string) => run(program, (client, output) => resultCommand(client, output, taskId)));
  program
    .command('list')
    .description('list your tasks')
    .action(() => run(program, listCommand, { needsTaskList: true }));
  program
    .command('cancel')
    .description('cancel a task')
    .argument('<taskId>')
    .action((taskId: string) => run(program, (client, output) => cancelCommand(client, output, taskId)));
  program
    .command('watch')
    .description(
      "follow a task live until it ends, then print its result: over the server's event stream when it offers " +
        'the Events extension (resuming after a dropped connection), else by polling',
    )
    .argument('<taskId>')
    .action((taskId: string) => run(program, (client, output) => watchCommand(client, output, taskId)));

  program
    .command('discovery')
    .description(
      'for the operator: the state machines tool discovery last looked at, and why each is or is not a tool; ' +
        'read from the task table with your AWS credentials, not through MCP',
    )
    .addOption(new Option('--table <name>', "the endpoint's task table").env('MCP_TASKS_TABLE').makeOptionMandatory())
    .addHelpText(
      'after',
      '\nRegion and credentials come from the AWS environment, as for the AWS CLI. Against npm start, set\n' +
        'AWS_ENDPOINT_URL_DYNAMODB to its DynamoDB Local (DYNAMODB_PORT fixes the port); its table is mcp-tasks-local.',
    )
    .action((options: { table: string }) =>
      runLocal(program, async (output) => (await import('./discovery-command.js')).discoveryCommand(output, options)),
    );

  const webhook = program
    .command('webhook')
    .description("receive the Events extension's signed webhooks on this machine, and subscribe to them");
  webhook
    .command('listen')
    .description(
      'receive webhooks on 127.0.0.1 and print each verified delivery, one per line (--json: the raw body); ' +
        'forged, late and replayed ones are refused with 401',
    )
    .addOption(new Option('--port <n>', 'port on 127.0.0.1 (0 for any free port)').argParser(portNumber).default(8787))
    .option('--secret <whsec>', "Standard Webhooks secret ('whsec_' + base64); made for you when left out")
    .option('--path <path>', 'path deliveries are POSTed to', '/hooks')
    .addHelpText(
      'after',
      '\nThe local stack (npm start) delivers to http on loopback. A deployed server delivers only to a public\n' +
        'https URL: expose the port through a tunnel (cloudflared tunnel --url http://127.0.0.1:8787, ngrok http\n' +
        "8787, ...) and subscribe with the tunnel's https URL plus the path. Ctrl-C stops (exit 0).",
    )
    .action((options: { port: number; secret?: string; path: string }) =>
      runLocal(program, (output) => webhookListenCommand(output, options, interrupted())),
    );
  webhook
    .command('subscribe')
    .description(
      'ask the server to POST events to <url> (events/subscribe): every change of your tasks, or with --task ' +
        "one task's events; prints the subscription's id and when to renew it",
    )
    .argument('<url>', "the receiver's URL (https, or http on loopback for the local stack)")
    .requiredOption('--secret <whsec>', 'the secret the receiver verifies with (webhook listen prints it)')
    .option('--task <taskId>', "one task's events (task.events) instead of all your tasks' (tasks.updated)")
    .option(
      '--cursor <cursor>',
      'with --task, replay the events after this cursor first: 0 for all of them (default: from now)',
    )
    .option('--ttl-ms <ms>', 'how long the subscription lives unless renewed (server default 24 h)', positiveInteger)
    .action((url: string, options: { secret: string; task?: string; cursor?: string; ttlMs?: number }) =>
      run(program, (client, output) => webhookSubscribeCommand(client, output, url, options)),
    );
  return program;
}

await buildProgram().parseAsync(process.argv);
