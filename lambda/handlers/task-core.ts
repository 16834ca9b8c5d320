// The task core: store, executor, registry and task service from one config, without the MCP HTTP app. Its own
// module so that a function serving no MCP (status sync) bundles neither the MCP SDK nor the protocol layer.
// It imports no AWS SDK: the AWS-backed parts load on their first call (aws-task-parts.ts, loaded-on-first-call.ts).
import { executionArnFor } from '../executor/workflow-engines.js';
import type { SyncExecutor } from '../executor/sync-executor.js';
import type { TaskExecutor } from '../executor/task-executor.js';
import { InputService } from '../service/input-service.js';
import type { Logger } from '../core/logger.js';
import { TaskService } from '../service/task-service.js';
import type { TaskServiceSettings } from '../service/settings.js';
import { NO_TASK_METRICS, type TaskMetrics } from '../core/task-metrics.js';
import type { InputRequestStore } from '../store/input-request-store.js';
import type { OwnerQuotas } from '../store/owner-quotas.js';
import type { TaskStore } from '../store/task-store.js';
import type { ToolDefinition } from '../contract/tool-definition.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { onceLoaded } from '../core/once-loaded.js';
import type { BackendClients } from './aws-clients.js';
import { loadedOnFirstCall } from './loaded-on-first-call.js';
import { SYSTEM_CLOCK } from '../core/clock.js';
import { defaultLogger } from './default-logger.js';
import { DISCOVERED_TOOLS_READ_INTERVAL_MS, DiscoveredToolsFollower } from '../service/discovered-tools-follower.js';
import { ToolListChanges } from '../service/tool-list-changes.js';
import type { DiscoveredCatalogStore } from '../store/discovered-catalog-store.js';
import { DeclaredToolsLoader } from '../service/declared-tools-loader.js';
import type { DeclaredCatalogStore } from '../store/declared-catalog-store.js';

export interface TaskCoreConfig {
  readonly tableName: string;
  readonly settings: TaskServiceSettings;
  /** The tools calls may start, when the composition root holds them; none for a function that records status. */
  readonly tools?: readonly ToolDefinition[];
  /**
   * The key of the declared tool catalog in the task table (as the deployment wrote it): its tools are read at the
   * first request and served in place of `tools`. How the MCP function gets its tools, deployed and on the local stack.
   */
  readonly declaredCatalogKey?: string;
  /**
   * How the declared catalog is read, given the store of the AWS-backed parts (which loads the AWS SDK's clients): the
   * MCP Lambda handler reads it without them where it can (lean-declared-catalog.ts). @default that store
   */
  readonly declaredCatalogReader?: (store: Pick<DeclaredCatalogStore, 'read'>) => Pick<DeclaredCatalogStore, 'read'>;
  /**
   * Also serve the tools discovered among the account's state machines (the catalog the refresher keeps in the table).
   * @default false
   */
  readonly discoveredTools?: boolean;
  /**
   * How long one read of the discovered-tools catalog serves an instance (and so how long after a change a listening
   * client is told of it). @default DISCOVERED_TOOLS_READ_INTERVAL_MS
   */
  readonly discoveredToolsReadIntervalMs?: number;
}

/** The clients, or how to make them when the first AWS call comes (the Lambda handlers: the SDK loads then). */
export type BackendClientsSource = BackendClients | (() => Promise<BackendClients>);

/** The production clients (aws-clients.ts), made on first use. */
export const loadDefaultClients = async (): Promise<BackendClients> =>
  (await import('./aws-clients.js')).defaultClients();

export interface TaskCore {
  readonly service: TaskService;
  readonly store: TaskStore;
  readonly tools: ToolRegistry;
  /** Answers to the input requests of tasks. */
  readonly inputs: InputService;
  /** Serves the declared catalog's tools, read at the first request; present when the config names its key. */
  readonly declaredTools?: DeclaredToolsLoader;
  /** Brings `tools` up to the discovered-tools catalog; present when the config asks for discovered tools. */
  readonly discoveredTools?: DiscoveredToolsFollower;
  /** Tells listening clients of a change of the discovered tools; present with `discoveredTools`. */
  readonly toolListChanges?: ToolListChanges;
}

/** Store, executor, registry and task service without the MCP HTTP app: what a function that serves no tools needs. */
export function createTaskCore(
  config: TaskCoreConfig,
  clients: BackendClientsSource = loadDefaultClients,
  logger: Logger = defaultLogger(),
  metrics: TaskMetrics = NO_TASK_METRICS,
): TaskCore {
  const awsParts = onceLoaded(async () => {
    const { createAwsTaskParts } = await import('./aws-task-parts.js');
    return createAwsTaskParts(typeof clients === 'function' ? await clients() : clients, config.tableName);
  });
  const store = loadedOnFirstCall<TaskStore>(async () => (await awsParts()).store, {});
  const executor = loadedOnFirstCall<TaskExecutor & SyncExecutor>(async () => (await awsParts()).executor, {
    executionArnFor,
  });
  const quotas = loadedOnFirstCall<OwnerQuotas>(async () => (await awsParts()).quotas, {});
  const inputRequests = loadedOnFirstCall<InputRequestStore>(async () => (await awsParts()).inputRequests, {});
  const tools = new ToolRegistry(config.tools ?? []);
  const service = new TaskService({
    store,
    quotas,
    executor,
    syncExecutor: executor,
    tools,
    settings: config.settings,
    logger,
    metrics,
  });
  const inputs = new InputService({ service, inputs: inputRequests, executor, logger, metrics });
  const readerOf = config.declaredCatalogReader ?? ((store: Pick<DeclaredCatalogStore, 'read'>) => store);
  const declaredTools =
    config.declaredCatalogKey !== undefined
      ? new DeclaredToolsLoader({
          catalog: readerOf(
            loadedOnFirstCall<DeclaredCatalogStore>(async () => (await awsParts()).declaredCatalog, {}),
          ),
          key: config.declaredCatalogKey,
          tools,
          logger,
        })
      : undefined;
  const base = { service, store, tools, inputs, ...(declaredTools ? { declaredTools } : {}) };
  if (!config.discoveredTools) return base;
  const catalog = loadedOnFirstCall<DiscoveredCatalogStore>(async () => (await awsParts()).catalog, {});
  const readIntervalMs = config.discoveredToolsReadIntervalMs ?? DISCOVERED_TOOLS_READ_INTERVAL_MS;
  return {
    ...base,
    discoveredTools: new DiscoveredToolsFollower({ catalog, tools, clock: SYSTEM_CLOCK, logger, readIntervalMs }),
    toolListChanges: new ToolListChanges({ catalog, clock: SYSTEM_CLOCK, settleMs: readIntervalMs }),
  };
}
