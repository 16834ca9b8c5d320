// mcp-tasks: run MCP tools as tasks from a terminal (call now, fetch later). Parses arguments with commander,
// connects with the protocol the server speaks, runs one command, and exits with a code scripts can branch on.
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  cancelCommand,
  callCommand,
  getCommand,
  listCommand,
  resultCommand,
  toolsCommand,
  watchCommand,
  type Output,
} from './commands.js';
import { connectTaskClient, PROTOCOLS, type ProtocolChoice } from './connect.js';
import { CLIENT_INFO } from './endpoint.js';
import { CliError, EXIT } from './cli-errors.js';
import type { TaskClient } from './task-client.js';

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

function outputFor(options: GlobalOptions): Output {
  return {
    json: options.json === true,
    // A person at a terminal: the live line and the Ctrl-C prompt need stdout, stderr and stdin to be terminals.
    interactive:
      options.json !== true &&
      process.stdout.isTTY === true &&
      process.stderr.isTTY === true &&
      process.stdin.isTTY === true,
    out: (text) => void process.stdout.write(`${text}\n`),
    err: (text) => void process.stderr.write(`${text}\n`),
  };
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
    code = error instanceof CliError ? error.exitCode : EXIT.server;
    const message =
      error instanceof CliError
        ? error.message
        : `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;
    if (output.json)
      output.out(JSON.stringify({ error: { kind: error instanceof Error ? error.name : 'Error', message } }));
    else output.err(message);
  }
  await client?.close().catch(() => {});
  process.exit(code);
}

export function buildProgram(): Command {
  const program = new Command('mcp-tasks')
    .description('Run MCP tools as tasks from a terminal: call now, fetch the result later.')
    .version(CLIENT_INFO.version)
    .addOption(new Option('--url <url>', 'MCP endpoint (Streamable HTTP)').env('MCP_TASKS_URL').default(DEFAULT_URL))
    .addOption(new Option('--token <token>', 'bearer token sent as Authorization').env('MCP_TASKS_TOKEN'))
    .addOption(new Option('--json', 'print one JSON object on stdout, for scripts'))
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
    .description('call a tool as a task; prints the task at once, or with --wait follows it and prints the result')
    .argument('<tool>', 'tool name')
    .option('--args <json>', 'tool arguments as a JSON object', '{}')
    .option('--wait', 'follow the task live and print its result')
    .option('--ttl <ms>', 'ask the server to keep the task this long after it ends', positiveInteger)
    .action((tool: string, options: { args?: string; wait?: boolean; ttl?: number }) =>
      run(program, (client, output) => callCommand(client, output, tool, options)),
    );
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
    .description('follow a task live until it ends, then print its result')
    .argument('<taskId>')
    .action((taskId: string) => run(program, (client, output) => watchCommand(client, output, taskId)));
  return program;
}

await buildProgram().parseAsync(process.argv);
