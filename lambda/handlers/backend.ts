// The composition root of the MCP endpoint: the task core plus the MCP HTTP app. The Lambda handler and the local
// dev server both build the backend here, so they run the same code.
import type { PromptDefinition } from '../prompts/prompt-definition.js';
import { PromptRegistry } from '../prompts/prompt-registry.js';
import { createMcpHttpApp, type McpHttpApp } from '../protocol/http-app.js';
import type { TaskMetrics } from '../core/task-metrics.js';
import type { Logger } from '../core/logger.js';
import { SYSTEM_CLOCK } from '../core/clock.js';
import { TaskExpiredError, TaskNotFoundError } from '../core/errors.js';
import { TaskEventFeed } from '../events/task-event-feed.js';
import { createTaskEventParts, type TaskEventParts, type TaskEventsConfig } from './task-events-core.js';
import { defaultLogger } from './default-logger.js';
import {
  createTaskCore,
  loadDefaultClients,
  type BackendClientsSource,
  type TaskCore,
  type TaskCoreConfig,
} from './task-core.js';

export interface BackendConfig extends TaskCoreConfig {
  /**
   * Prompts for prompts/get (modern era). Code, not configuration (each renders its messages), so a composition root
   * passes them in; the Lambda handler serves none. @default none
   */
  readonly prompts?: readonly PromptDefinition[];
  /** Host names the Host and Origin headers may name (DNS-rebinding protection); unset accepts any. */
  readonly allowedHosts?: readonly string[];
  /**
   * The HMAC key of plain calls' `requestState` (SEP-2322), shared by every instance, read when first needed.
   * @default a random key per process
   */
  readonly requestStateKey?: () => Promise<string>;
  /** The task event log and webhook subscriptions (the Events extension); absent: the endpoint offers no events. */
  readonly events?: TaskEventsConfig;
}

export interface Backend extends TaskCore {
  readonly app: McpHttpApp;
  readonly events?: TaskEventParts;
}

/** How often an open events/stream looks for new events: well under a second, for a few reads a second at most. */
const EVENT_STREAM_POLL_MS = 250;
/** SEP-3415 asks for a heartbeat at least every 30 s. */
const EVENT_STREAM_HEARTBEAT_MS = 15_000;

/**
 * `metrics` defaults to none: the Lambda handler passes CloudWatch metrics, the local dev server keeps its log
 * readable.
 */
export function createBackend(
  config: BackendConfig,
  clients: BackendClientsSource = loadDefaultClients,
  logger: Logger = defaultLogger(),
  metrics?: TaskMetrics,
): Backend {
  const core = createTaskCore(config, clients, logger, metrics);
  const taskExists = async (owner: string, taskId: string): Promise<boolean> => {
    try {
      await core.service.getTask(owner, taskId);
      return true;
    } catch (error) {
      if (error instanceof TaskNotFoundError || error instanceof TaskExpiredError) return false;
      throw error;
    }
  };
  const events = config.events
    ? createTaskEventParts(config.events, clients, { clock: SYSTEM_CLOCK, logger, taskExists })
    : undefined;
  const app = createMcpHttpApp({
    service: core.service,
    inputs: core.inputs,
    tools: core.tools,
    ...(config.prompts ? { prompts: new PromptRegistry(config.prompts) } : {}),
    settings: config.settings,
    logger,
    ...(config.allowedHosts ? { allowedHosts: config.allowedHosts } : {}),
    ...(config.requestStateKey ? { requestStateKey: config.requestStateKey } : {}),
    ...(core.declaredTools ? { declaredTools: core.declaredTools } : {}),
    ...(core.discoveredTools ? { discoveredTools: core.discoveredTools } : {}),
    ...(core.toolListChanges ? { toolListChanges: core.toolListChanges } : {}),
    ...(events
      ? {
          events: {
            feed: new TaskEventFeed(events.events),
            ...(events.subscriptions ? { subscriptions: events.subscriptions } : {}),
            clock: SYSTEM_CLOCK,
            streamPollMs: EVENT_STREAM_POLL_MS,
            heartbeatMs: EVENT_STREAM_HEARTBEAT_MS,
            streamLifetimeMs: config.settings.resultWaitMs,
          },
        }
      : {}),
  });
  return { ...core, app, ...(events ? { events } : {}) };
}
