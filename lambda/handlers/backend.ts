// The composition root of the MCP endpoint: the task core plus the MCP HTTP app. The Lambda handler and the local
// dev server both build the backend here, so they run the same code.
import type { PromptDefinition } from '../prompts/prompt-definition.js';
import { PromptRegistry } from '../prompts/prompt-registry.js';
import { createMcpHttpApp, type McpHttpApp } from '../protocol/http-app.js';
import type { TaskMetrics } from '../core/task-metrics.js';
import type { Logger } from '../core/logger.js';
import type { ToolDefinition } from '../contract/tool-definition.js';
import {
  createTaskCore,
  defaultLogger,
  loadDefaultClients,
  type BackendClientsSource,
  type TaskCore,
  type TaskCoreConfig,
} from './task-core.js';

export interface BackendConfig extends TaskCoreConfig {
  readonly tools: readonly ToolDefinition[];
  /**
   * Prompts for prompts/get (modern era). Code, not configuration (each renders its messages), so a composition root
   * passes them in; the Lambda handler serves none. @default none
   */
  readonly prompts?: readonly PromptDefinition[];
  /** Host names the Host and Origin headers may name (DNS-rebinding protection); unset accepts any. */
  readonly allowedHosts?: readonly string[];
  /**
   * The HMAC key of plain calls' `requestState` (SEP-2322), shared by every instance. @default a random key per process
   */
  readonly requestStateKey?: string;
}

export interface Backend extends TaskCore {
  readonly app: McpHttpApp;
}

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
  const app = createMcpHttpApp({
    service: core.service,
    inputs: core.inputs,
    tools: core.tools,
    ...(config.prompts ? { prompts: new PromptRegistry(config.prompts) } : {}),
    settings: config.settings,
    logger,
    ...(config.allowedHosts ? { allowedHosts: config.allowedHosts } : {}),
    ...(config.requestStateKey ? { requestStateKey: config.requestStateKey } : {}),
  });
  return { ...core, app };
}
