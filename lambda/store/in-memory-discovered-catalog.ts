// DiscoveredCatalogStore in memory, for fast unit tests: the contract suite (test/contract) holds it to the same
// guarantees as the DynamoDB store. Not for production: one process only.
import { catalogDigest } from './catalog-digest.js';
import {
  cappedReport,
  type DiscoveredCatalogStore,
  type DiscoveryReport,
  type MachineDecision,
  type StoredCatalog,
} from './discovered-catalog-store.js';
import type { ToolDefinition } from '../contract/tool-definition.js';

export class InMemoryDiscoveredCatalog implements DiscoveredCatalogStore {
  #stored: StoredCatalog | null = null;
  #report: DiscoveryReport | null = null;

  async read(): Promise<StoredCatalog | null> {
    return this.#stored === null ? null : structuredClone(this.#stored);
  }

  async write(tools: readonly ToolDefinition[], at: number): Promise<{ changed: boolean }> {
    const digest = catalogDigest(tools);
    const changed = this.#stored?.digest !== digest;
    this.#stored = changed
      ? { tools: structuredClone(tools), digest, refreshedAt: at, changedAt: at }
      : { ...this.#stored!, refreshedAt: at };
    return { changed };
  }

  async writeReport(machines: readonly MachineDecision[], at: number): Promise<void> {
    this.#report = structuredClone(cappedReport(machines, at));
  }

  async readReport(): Promise<DiscoveryReport | null> {
    return this.#report === null ? null : structuredClone(this.#report);
  }
}
