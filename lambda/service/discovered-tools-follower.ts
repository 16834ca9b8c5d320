// Keeps an instance's tools in step with the discovered-tools catalog (one item the catalog refresher writes): read
// at most once per interval, so a tools/list or tools/call costs no read within it, and a machine that leaves the
// selection stops being callable within one refresh and one interval. A read that fails keeps the tools as they were.
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { DiscoveredCatalogStore } from '../store/discovered-catalog-store.js';
import type { ToolRegistry } from '../tools/tool-registry.js';

export interface DiscoveredToolsFollowerOptions {
  readonly catalog: Pick<DiscoveredCatalogStore, 'read'>;
  readonly tools: ToolRegistry;
  readonly clock: Pick<Clock, 'now'>;
  readonly logger: Logger;
  /** How long a read of the catalog serves. @default DISCOVERED_TOOLS_READ_INTERVAL_MS */
  readonly readIntervalMs?: number;
}

/** Half a minute: a change in the account reaches clients within a refresh and this, at one read per instance. */
export const DISCOVERED_TOOLS_READ_INTERVAL_MS = 30_000;

export class DiscoveredToolsFollower {
  private readAt: number | undefined;
  private digest: string | undefined;
  private reading: Promise<boolean> | undefined;

  constructor(private readonly options: DiscoveredToolsFollowerOptions) {}

  /**
   * Reads the catalog when the last read is older than the interval, and serves its tools when they changed; concurrent
   * callers share the read. Resolves whether the tools changed.
   */
  freshen(): Promise<boolean> {
    const now = this.options.clock.now();
    const interval = this.options.readIntervalMs ?? DISCOVERED_TOOLS_READ_INTERVAL_MS;
    if (this.reading !== undefined) return this.reading;
    if (this.readAt !== undefined && now - this.readAt < interval) return Promise.resolve(false);
    this.reading = this.read(now).finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(now: number): Promise<boolean> {
    let stored;
    try {
      stored = await this.options.catalog.read();
    } catch (error) {
      // The tools served so far stand; the next request tries again.
      this.options.logger.warn('Could not read the discovered tools', { error: String(error) });
      return false;
    }
    this.readAt = now;
    const digest = stored?.digest;
    if (digest === this.digest) return false;
    this.digest = digest;
    const refused = this.options.tools.replaceDiscovered(stored?.tools ?? []);
    for (const tool of refused)
      this.options.logger.warn('Discovered tool not served: its name is taken or its definition invalid', {
        tool: tool.name,
      });
    return true;
  }
}
