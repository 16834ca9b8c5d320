// The discovered-tools catalog contract: the tools the account's own state machines became at the last refresh, kept
// where every instance of the MCP function reads it with one read, instead of each listing the account.
import type { ToolDefinition } from '../contract/tool-definition.js';

export interface StoredCatalog {
  readonly tools: readonly ToolDefinition[];
  /** Changes exactly when the tools do (a hash of them): a reader tells a new catalog from the one it holds by it. */
  readonly digest: string;
  /** Epoch ms of the refresh that last wrote it, whether or not the tools changed then. */
  readonly refreshedAt: number;
  /**
   * Epoch ms of the refresh that last changed the tools (the first write counts as one): how long every reader has had
   * to catch up with them. 0 for a catalog written before this was recorded.
   */
  readonly changedAt: number;
}

export interface DiscoveredCatalogStore {
  /** The catalog as last written, or `null` when none was. One read. */
  read(): Promise<StoredCatalog | null>;
  /**
   * Stores `tools` as the catalog, refreshed at `at` (and changed at `at` when they differ from the catalog stored
   * before; none before counts as a change). `changed` tells which.
   */
  write(tools: readonly ToolDefinition[], at: number): Promise<{ readonly changed: boolean }>;
}
