// DeclaredCatalogStore in memory, for fast unit tests: the contract suite (test/contract) holds it to the same
// guarantees as the DynamoDB store. Not for production: one process only.
import type { ToolDefinition } from '../contract/tool-definition.js';
import type { DeclaredCatalogStore } from './declared-catalog-store.js';

export class InMemoryDeclaredCatalog implements DeclaredCatalogStore {
  readonly #catalogs = new Map<string, readonly ToolDefinition[]>();

  async read(key: string): Promise<ToolDefinition[] | null> {
    const tools = this.#catalogs.get(key);
    return tools === undefined ? null : structuredClone([...tools]);
  }

  async write(key: string, tools: readonly ToolDefinition[]): Promise<void> {
    this.#catalogs.set(key, structuredClone(tools));
  }
}
