// The declared tool catalog contract: the tools registered in code, stored as one item of the task table under a key
// versioned by their content (contract/declared-tool-catalog.ts). The CDK construct writes the item at deploy time and
// names its key in the MCP function's environment; an instance reads it once, at its first request. Never changed in
// place: a new catalog is a new key.
import type { ToolDefinition } from '../contract/tool-definition.js';

export interface DeclaredCatalogStore {
  /** The tools stored under `key`, in catalog order, or `null` when no catalog has that key. One read. */
  read(key: string): Promise<ToolDefinition[] | null>;
  /**
   * Stores `tools` under `key`, in one write, as the construct's deploy-time write does (the local stack and tests
   * write here). Writing the same key again replaces the catalog.
   */
  write(key: string, tools: readonly ToolDefinition[]): Promise<void>;
}
