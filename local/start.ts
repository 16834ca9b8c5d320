// `npm start`: the whole product on local stand-ins. Starts DynamoDB Local, the Step Functions emulator and the local
// runner of durable functions, registers the example tools, serves MCP and prints its URL; Ctrl-C stops everything it
// started. With LOCAL_STATE_DIR, tables, machines, executions and schemas are kept there across restarts.
// `npm run start:conformance` (`--conformance`) serves the MCP conformance suite's fixture tools instead.
// `npm run start:oauth` (`--oauth`) puts the endpoint's own authorization server in front, as deployed, with a local
// OpenID provider standing in for Cognito; it prints the test user's credentials.
import { CONFORMANCE_PROMPTS, CONFORMANCE_TOOLS } from '../lambda/conformance-tools/conformance-tool-catalog.js';
import { EXAMPLE_EXPRESS_TOOLS, EXAMPLE_TOOLS } from '../lambda/example-tools/example-tool-catalog.js';
import { EXAMPLE_DURABLE_TOOLS } from '../lambda/example-tools/example-durable-tools.js';
import { createBackend } from '../lambda/handlers/backend.js';
import { configFromEnvironment } from '../lambda/handlers/environment.js';
import { ENV } from '../lambda/contract/environment-names.js';
import { createExpirySweep } from '../lambda/handlers/expiry-sweep-core.js';
import { bearerTokenOwners, LOOPBACK_HOSTS, singleOwner, startDevServer } from './dev-server.js';
import { JavaMissingError } from './dynamodb-local.js';
import { startScheduleTimer } from './schedule-timer.js';
import { localClients, startLocalInfrastructure } from './infrastructure.js';
import { localAwsEnvironment } from './local-aws.js';
import { ensurePortFree, freePort, PortInUseError } from './free-port.js';
import { InvalidPortError, localPortsFrom, PORT_VARIABLES } from './local-ports.js';
import { createEventTable, createOAuthTable } from './dynamodb-local-tables.js';
import { startLocalTaskEvents } from './task-events-stack.js';
import { startLocalOAuth, type LocalOAuth } from './oauth-stack.js';
import { startLocalDiscovery } from './discovery-stack.js';
import { startLocalStatusEvents } from './status-events-stand-in.js';
import { DEFAULT_RECONCILER_MAX_CHECKS } from '../lambda/service/execution-reconciler.js';
import { writeDeclaredCatalog } from './declared-tool-catalog.js';
import { keptKey, localStatePaths, stateDirFrom, STATE_DIR_VARIABLE } from './local-state.js';
import { randomSealingKey } from '../lambda/store/secret-sealer.js';

const TABLE_NAME = 'mcp-tasks-local';
const EVENT_TABLE_NAME = 'mcp-tasks-events-local';
/** Warnings and errors of the event pipeline, on the console. */
const localLogger = {
  info: () => {},
  warn: (message: string, extra: Record<string, unknown>) => console.warn(message, extra),
  error: (message: string, extra: Record<string, unknown>) => console.error(message, extra),
};
const OAUTH_TABLE_NAME = 'mcp-tasks-oauth-local';
const CONFORMANCE_POLL_INTERVAL_MS = 100;
const CONFORMANCE_CREATIONS_PER_MINUTE = 10_000;
/**
 * How often the expiry sweep runs locally (every 5 minutes in AWS): an expired task's execution is stopped within this.
 */
const LOCAL_EXPIRY_SWEEP_INTERVAL_MS = 10_000;
const LOCAL_RECONCILER_INTERVAL_MS = 60_000;
/** How often the local catalog refresher reads the emulator (every 5 minutes, and on each change, in AWS). */
const LOCAL_DISCOVERY_REFRESH_MS = 5_000;

async function main(): Promise<void> {
  const ports = localPortsFrom(process.env);
  const port = ports.mcp;
  const conformance = process.argv.includes('--conformance');
  const withOAuth = process.argv.includes('--oauth');
  const stateDir = stateDirFrom(process.env);
  const state = stateDir === undefined ? undefined : localStatePaths(stateDir);
  // A port already taken fails here, before anything starts, in one line (and again at the listen, if it was taken
  // meanwhile: then what was started is stopped).
  if (port !== 0) await ensurePortFree(port);
  if (ports.stepFunctions !== 0) await ensurePortFree(ports.stepFunctions, '127.0.0.1', PORT_VARIABLES.stepFunctions);
  if (ports.schemaRegistry !== 0 && !conformance)
    await ensurePortFree(ports.schemaRegistry, '127.0.0.1', PORT_VARIABLES.schemaRegistry);
  // DynamoDB Local listens on every interface.
  if (ports.dynamoDb !== 0) await ensurePortFree(ports.dynamoDb, '0.0.0.0', PORT_VARIABLES.dynamoDb);
  const served = conformance
    ? CONFORMANCE_TOOLS
    : [...EXAMPLE_TOOLS, ...EXAMPLE_EXPRESS_TOOLS, ...EXAMPLE_DURABLE_TOOLS];
  const infrastructure = await startLocalInfrastructure(
    { served },
    {
      progressTableName: TABLE_NAME,
      ports: { stepFunctions: ports.stepFunctions, dynamoDb: ports.dynamoDb },
      ...(stateDir !== undefined ? { stateDir } : {}),
    },
  );
  const tools = infrastructure.tools.served;
  let stopping = false;
  const stopAll: Array<() => Promise<void>> = [infrastructure.stop];
  const shutdown = async (exitCode: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    for (const stop of stopAll.reverse()) await stop().catch((error: unknown) => console.error(error));
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  try {
    await infrastructure.createTable(TABLE_NAME);
    const { dynamoDb } = localClients(infrastructure);
    // The same composition root as the Lambda handler: the AWS SDK picks the stand-ins up from AWS_ENDPOINT_URL_*, and
    // the tools are read from the catalog item, written here as the deployment writes it.
    Object.assign(process.env, {
      ...localAwsEnvironment(infrastructure),
      [ENV.tableName]: TABLE_NAME,
      [ENV.toolCatalogItem]: await writeDeclaredCatalog(dynamoDb, TABLE_NAME, tools),
      [ENV.allowedHosts]: LOOPBACK_HOSTS.join(','),
      POWERTOOLS_LOG_LEVEL: process.env['POWERTOOLS_LOG_LEVEL'] ?? 'WARN',
      // The suite reads a plain call's answer within half a second, so executions are checked that often; and it
      // calls tools in bursts from one owner, faster than a person would.
      ...(conformance
        ? {
            [ENV.pollIntervalMs]: process.env[ENV.pollIntervalMs] ?? String(CONFORMANCE_POLL_INTERVAL_MS),
            [ENV.maxTaskCreationsPerMinute]:
              process.env[ENV.maxTaskCreationsPerMinute] ?? String(CONFORMANCE_CREATIONS_PER_MINUTE),
          }
        : {}),
    });
    // Task events and webhooks, as deployed: the task table's stream feeds the event log and the delivery queue. Any
    // loopback receiver may be subscribed (`mcp-tasks webhook listen`); it still answers the verification handshake.
    await createEventTable(dynamoDb, EVENT_TABLE_NAME);
    const events = await startLocalTaskEvents({
      dynamoDb,
      dynamoDbEndpoint: infrastructure.dynamoDbEndpoint,
      taskTableName: TABLE_NAME,
      eventTableName: EVENT_TABLE_NAME,
      allowLoopbackHttp: true,
      logger: localLogger,
      ...(state
        ? {
            sealingKey: keptKey(state.webhookSealingKey, randomSealingKey),
            streamPositionFile: state.taskEventStream,
          }
        : {}),
    });
    stopAll.push(events.stop);
    // The team's own machines as tools, found by their tags (not in conformance mode: the suite expects its fixtures).
    const discovery = conformance
      ? undefined
      : await startLocalDiscovery({
          stepFunctions: localClients(infrastructure).stepFunctions,
          dynamoDb,
          tableName: TABLE_NAME,
          reservedNames: new Set(tools.map((tool) => tool.name)),
          intervalMs: LOCAL_DISCOVERY_REFRESH_MS,
          logger: localLogger,
          schemaRegistryPort: ports.schemaRegistry,
          ...(state ? { schemaRegistryStateFile: state.schemaRegistry } : {}),
        });
    if (discovery) stopAll.push(discovery.stop);
    if (discovery) process.env[ENV.discoveredTools] = 'true';
    // Prompts are code (each renders its messages), so they are handed over here rather than through the environment.
    const prompts = conformance ? CONFORMANCE_PROMPTS : [];
    const backend = createBackend({ ...configFromEnvironment(process.env), prompts, events: events.config });
    // Step Functions' status events, which the emulator does not send: every unfinished task's execution, looked at.
    const statusEvents = await startLocalStatusEvents({
      dynamoDb,
      dynamoDbEndpoint: infrastructure.dynamoDbEndpoint,
      taskTableName: TABLE_NAME,
      service: backend.service,
      executionEnded: infrastructure.onExecutionEnded,
      onError: (error) => localLogger.warn('Task table stream read failed', { error: String(error) }),
    });
    stopAll.push(statusEvents.stop);
    const expirySweep = createExpirySweep({ tableName: TABLE_NAME });
    const sweep = startScheduleTimer(() => expirySweep.run(), {
      intervalMs: Number(process.env['EXPIRY_SWEEP_INTERVAL_MS'] ?? LOCAL_EXPIRY_SWEEP_INTERVAL_MS),
      onError: (error) => console.error('Expiry sweep failed:', error),
    });
    stopAll.push(sweep.stop);
    // The reconciler as deployed (a run a minute, its default budget), so a status change the local watcher missed is
    // still caught.
    const reconciler = startScheduleTimer(
      () => backend.service.reconcileDue({ maxChecks: DEFAULT_RECONCILER_MAX_CHECKS }),
      {
        intervalMs: Number(process.env['RECONCILER_INTERVAL_MS'] ?? LOCAL_RECONCILER_INTERVAL_MS),
        onError: (error) => console.error('Reconciler failed:', error),
      },
    );
    stopAll.push(reconciler.stop);
    const tokens = process.env['LOCAL_TOKENS'];
    const resolveOwner = tokens ? bearerTokenOwners(JSON.parse(tokens) as Record<string, string>) : singleOwner();
    let oauth: LocalOAuth | undefined;
    // The issuer is the server's own URL, so the port is settled before the server starts.
    const listenPort = withOAuth && port === 0 ? await freePort() : port;
    if (withOAuth) {
      await createOAuthTable(dynamoDb, OAUTH_TABLE_NAME);
      const baseUrl = `http://127.0.0.1:${listenPort}`;
      oauth = await startLocalOAuth({ baseUrl, resource: `${baseUrl}/mcp`, dynamoDb, tableName: OAUTH_TABLE_NAME });
      stopAll.push(oauth.close);
    }
    const server = await startDevServer(backend.app, {
      port: listenPort,
      resolveOwner,
      ...(oauth ? { oauth: { proxy: oauth.proxy, bearerOwner: oauth.bearerOwner } } : {}),
    });
    stopAll.push(server.close);
    console.log(`MCP endpoint: ${server.url}`);
    console.log(`Tools: ${tools.map((tool) => tool.name).join(', ')}`);
    if (infrastructure.lambdaEndpoint)
      console.log(`Durable functions (local runner): ${infrastructure.lambdaEndpoint}`);
    if (discovery) {
      console.log(`Step Functions (local): ${infrastructure.stepFunctionsEndpoint}`);
      console.log(`Schema Registry (local): ${discovery.schemaRegistryEndpoint}`);
      console.log(`Discovery: ${discovery.description} (tools/list shows greet-discovered)`);
    }
    if (prompts.length > 0) console.log(`Prompts: ${prompts.map((prompt) => prompt.name).join(', ')}`);
    if (oauth) {
      console.log(
        `Auth: OAuth (authorization server ${oauth.issuer}; people sign in at ${oauth.upstream.issuer}, for Cognito)`,
      );
      console.log(`Test user: ${oauth.upstream.user.username}  password: ${oauth.upstream.user.password}`);
    } else {
      console.log(tokens ? 'Auth: bearer tokens from LOCAL_TOKENS' : "Auth: off (every request is owner 'local')");
    }
    console.log('Events: task.events (poll, push, webhook), tasks.updated (webhook); try `mcp-tasks webhook listen`');
    console.log(
      stateDir !== undefined
        ? `State: kept in ${stateDir} across restarts (${STATE_DIR_VARIABLE})`
        : `State: in memory, gone when this stops (${STATE_DIR_VARIABLE}=<dir> keeps it)`,
    );
    console.log('Press Ctrl-C to stop.');
  } catch (error) {
    console.error(error instanceof PortInUseError ? error.message : error);
    await shutdown(1);
  }
}

main().catch((error: unknown) => {
  const oneLine =
    error instanceof JavaMissingError || error instanceof PortInUseError || error instanceof InvalidPortError;
  console.error(oneLine ? error.message : error);
  process.exit(1);
});
