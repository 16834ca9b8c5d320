// Tells a listening client when the tool list changed: the discovered-tools catalog, read through its store (one item
// the refresher writes) at a bounded interval, so a stream on any instance sees a refresh however it was triggered.
// A change is announced only once every instance serves it: an instance follows the catalog at most one read interval
// behind (discovered-tools-follower.ts), so the tools/list a client sends on the notification, to whichever instance,
// sees the new list rather than the one it already had.
import type { Clock } from '../core/clock.js';
import type { DiscoveredCatalogStore, StoredCatalog } from '../store/discovered-catalog-store.js';

export interface ToolListChangesOptions {
  readonly catalog: Pick<DiscoveredCatalogStore, 'read'>;
  readonly clock: Clock;
  /** How far behind the catalog an instance's tools may be: the followers' read interval. */
  readonly settleMs: number;
}

/** What a stream last told its client of: the catalog's digest (`null`: no catalog), or unknown. */
type Told = { readonly digest: string | null } | undefined;

/**
 * The change detection of one listening stream: each `check` reads the catalog, and a catalog other than the one the
 * client was last told of is due once `settleMs` has passed since it was written (its `changedAt`). A change undone
 * before then is no change. A stream cannot know which list its client holds: a catalog that changed less than
 * `settleMs` before the stream opened may not have reached the client's last tools/list, so it is announced too (at
 * worst once more than needed), and a client that listens again after a stream ends misses no change.
 */
export class ToolListChangeDetector {
  private constructor(
    private readonly options: ToolListChangesOptions,
    private told: Told,
  ) {}

  /**
   * A detector that starts from what the client says it was last told of (`lastTold`, a digest or `null` for no
   * catalog), or else from the catalog as it is now (one read; a failed read rejects).
   */
  static async start(options: ToolListChangesOptions, lastTold?: string | null): Promise<ToolListChangeDetector> {
    if (lastTold !== undefined) return new ToolListChangeDetector(options, { digest: lastTold });
    const detector = new ToolListChangeDetector(options, undefined);
    const catalog = await options.catalog.read();
    if (detector.settled(catalog)) detector.told = { digest: catalog?.digest ?? null };
    return detector;
  }

  /** The digest the client was last told of (`null`: no catalog); `undefined` while that is unknown. */
  get lastTold(): string | null | undefined {
    return this.told?.digest;
  }

  /** Reads the catalog; true when a change is due to be announced now (it is then what the client was told of). */
  async check(): Promise<boolean> {
    const catalog = await this.options.catalog.read();
    const digest = catalog?.digest ?? null;
    if (this.told?.digest === digest || !this.settled(catalog)) return false;
    this.told = { digest };
    return true;
  }

  /** Every instance serves `catalog` by now. No catalog at all never changed. */
  private settled(catalog: StoredCatalog | null): boolean {
    return catalog === null || this.options.clock.now() - catalog.changedAt >= this.options.settleMs;
  }
}

export interface ToolListWatch {
  /** Epoch ms at which the watch ends by itself. */
  readonly until: number;
  /** How often the catalog is read. */
  readonly pollIntervalMs: number;
  /** Ends the watch early (the client went away). */
  readonly signal: AbortSignal;
  /** The digest the client says it was last told of, when it resumes a stream (`null`: no catalog). */
  readonly lastTold?: string | null;
}

export interface ToolListEvents {
  /** Once the watch knows what the client was told of (not called while that is unknown). */
  onStart?(lastTold: string | null): void;
  /** On each change due to be announced, with the catalog's new digest (`null`: no catalog). */
  onChange(digest: string | null): void;
}

/** Streams of tool-list changes for listening clients; present only where the tool list can change at run time. */
export class ToolListChanges {
  constructor(private readonly options: ToolListChangesOptions) {}

  /**
   * Calls `events.onChange` for each change of the tool list until the watch ends. Rejects when a read of the
   * catalog fails (the stream then ends, and the client listens again).
   */
  async watch(watch: ToolListWatch, events: ToolListEvents): Promise<void> {
    const { clock } = this.options;
    const detector = await ToolListChangeDetector.start(this.options, watch.lastTold);
    if (detector.lastTold !== undefined) events.onStart?.(detector.lastTold);
    while (!watch.signal.aborted && clock.now() < watch.until) {
      await clock.sleep(Math.min(watch.pollIntervalMs, watch.until - clock.now()), watch.signal);
      if (watch.signal.aborted) return;
      if (await detector.check()) events.onChange(detector.lastTold!);
    }
  }
}
