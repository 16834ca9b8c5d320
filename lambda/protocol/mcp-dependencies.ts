// What every MCP server this endpoint builds, legacy or modern era, is made from.
import type { InputService } from '../service/input-service.js';
import type { PromptRegistry } from '../prompts/prompt-registry.js';
import type { Logger } from '../core/logger.js';
import type { TaskService } from '../service/task-service.js';
import type { TaskServiceSettings } from '../service/settings.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import type { ToolListChanges } from '../service/tool-list-changes.js';
import type { TaskEventsAccess } from './events-access.js';

export const SERVER_INFO = { name: 'mcp-tasks-sfn', version: '0.1.0' } as const;

export interface McpServerDependencies {
  readonly service: TaskService;
  readonly tools: ToolRegistry;
  /** Prompts, served in the modern era only (see legacy-server.ts). @default none */
  readonly prompts?: PromptRegistry;
  readonly settings: TaskServiceSettings;
  readonly logger: Logger;
  /** Answers to tasks' input requests. */
  readonly inputs: InputService;
  /**
   * The HMAC key of plain calls' `requestState` (SEP-2322; at least 32 bytes), the same on every instance that may
   * see a retry: see protocol/request-state. Asked for when a state is first minted or verified, so a key kept in
   * Secrets Manager is read only by a call that needs it. @default a random key for this process alone
   */
  readonly requestStateKey?: () => Promise<string>;
  /** Task events (the Events extension): absent when the endpoint has no event table. */
  readonly events?: TaskEventsAccess;
  /**
   * Changes of the tool list for listening clients, where tools are discovered at run time: both eras then declare
   * `tools.listChanged`. Absent, the tools change only with a deployment, and neither does.
   */
  readonly toolListChanges?: ToolListChanges;
}
