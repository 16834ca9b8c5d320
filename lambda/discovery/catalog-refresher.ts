// The catalog refresher's use case: read the account's state machines, keep those the selection takes, turn them into
// tools and store the catalog. It runs outside the request path (on a schedule, and when a machine changes), so the
// MCP function never lists the account. A refresh that cannot read something the catalog depends on fails whole and
// leaves the stored catalog as it was: a passing outage must not remove a tool that is still there.
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { DISCOVERY_TAGS, nameIsSelected, type DiscoverySelection } from '../contract/discovery-selection.js';
import type { ToolDefinition } from '../contract/tool-definition.js';
import type { DiscoveredCatalogStore, MachineDecision } from '../store/discovered-catalog-store.js';
import { discoveredCatalog, type DiscoveredMachine, type SkippedMachine } from './discovered-tools.js';
import type { RegistrySchemaType } from './registry-schema.js';

/** What the refresher reads of Step Functions (ListStateMachines, ListTagsForResource, DescribeStateMachine). */
export interface StateMachineSource {
  /** Every state machine in the account and region, all pages. */
  list(): Promise<Array<Pick<DiscoveredMachine, 'name' | 'arn' | 'type'>>>;
  tags(arn: string): Promise<Record<string, string>>;
  /** The machine's ASL; `undefined` when it was deleted since it was listed. */
  definition(arn: string): Promise<string | undefined>;
}

/** What the refresher reads of the EventBridge Schema Registry (DescribeSchema, latest version). */
export interface SchemaSource {
  /** The schema the ARN names, or `null` when there is none (a tool whose schema is missing is skipped). */
  describe(schemaArn: string): Promise<{ content: string; type: RegistrySchemaType; version?: string } | null>;
}

export interface CatalogRefresherOptions {
  readonly machines: StateMachineSource;
  readonly schemas: SchemaSource;
  readonly store: DiscoveredCatalogStore;
  readonly selection: DiscoverySelection;
  /** The tools written in code: a discovered machine never takes one of their names. */
  readonly reservedNames: ReadonlySet<string>;
  readonly clock: Pick<Clock, 'now'>;
  readonly logger: Logger;
}

export interface RefreshReport {
  readonly tools: number;
  readonly skipped: readonly SkippedMachine[];
  /** Whether the catalog's tools differ from the stored ones: then listening clients are to be told. */
  readonly changed: boolean;
}

/** Reads of one kind in flight at once: Step Functions' control-plane APIs have small buckets. */
const READS_AT_ONCE = 4;

export class CatalogRefresher {
  /**
   * Each skipped machine's reason as last logged, by ARN: a reason is logged when it first appears or changes, not on
   * every refresh (locally every 5 s), and again after the machine has been a tool or gone. Per instance: a fresh
   * Lambda instance logs what it finds once more.
   */
  private readonly reported = new Map<string, string>();

  /** The refresh under way, and the one asked for meanwhile, which starts when it ends. */
  private running: Promise<RefreshReport> | undefined;
  private queued: Promise<RefreshReport> | undefined;

  constructor(private readonly options: CatalogRefresherOptions) {}

  /**
   * Reads the account and stores the catalog and the report. One at a time per refresher: a refresh asked for while one
   * runs starts after it (those asked meanwhile share it), so an older refresh never ends after a newer one and
   * overwrites what it found, or forgets a reason it had logged and so logs it twice (a timer shorter than a slow
   * refresh, locally). Each caller gets a refresh that started after it asked.
   */
  refresh(): Promise<RefreshReport> {
    // A queued refresh has not started yet even when the running one has just ended: join it, not start a second.
    if (this.queued !== undefined) return this.queued;
    if (this.running === undefined) return this.start();
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    return this.queued;
  }

  private start(): Promise<RefreshReport> {
    const run = this.refreshOnce().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async refreshOnce(): Promise<RefreshReport> {
    const { machines, store, selection, reservedNames, clock, logger } = this.options;
    const named = (await machines.list()).filter((machine) => nameIsSelected(selection, machine.name));
    const refused: SkippedMachine[] = [];
    // Passed over by their tag, on purpose or not: listed to the operator after the rest, never logged.
    const untagged: SkippedMachine[] = [];
    const described = await inBatches(named, async (machine): Promise<DiscoveredMachine | undefined> => {
      const tags = await machines.tags(machine.arn);
      if (selection.tag !== undefined && tags[selection.tag.key] !== selection.tag.value) {
        const near = nearTagValueReason(selection.tag, tags[selection.tag.key]);
        if (near !== undefined) refused.push({ arn: machine.arn, reason: near });
        else untagged.push({ arn: machine.arn, reason: untaggedReason(selection.tag, tags[selection.tag.key]) });
        return undefined;
      }
      const definition = await machines.definition(machine.arn);
      // Deleted between the listing and now: it is no tool.
      if (definition === undefined) return undefined;
      const registrySchema = await this.registrySchemaOf(tags);
      return { ...machine, tags, definition, ...(registrySchema ? { registrySchema } : {}) };
    });
    const selected = described.filter((machine): machine is DiscoveredMachine => machine !== undefined);
    const catalog = discoveredCatalog(selected, selection, reservedNames);
    const at = clock.now();
    const { changed } = await store.write(catalog.tools, at);
    const skipped = [...refused, ...catalog.skipped].sort((a, b) => (a.arn < b.arn ? -1 : a.arn > b.arn ? 1 : 0));
    this.logNewReasons(skipped);
    await store.writeReport(decisions(named, skipped, catalog.tools, untagged), at);
    logger.info('Tool catalog refreshed', { tools: catalog.tools.length, skipped: skipped.length, changed });
    return { tools: catalog.tools.length, skipped, changed };
  }

  /** Warns of each skipped machine whose reason is not the one last logged for it; forgets the machines not skipped. */
  private logNewReasons(skipped: readonly SkippedMachine[]): void {
    const now = new Map(skipped.map((machine) => [machine.arn, machine.reason]));
    for (const arn of [...this.reported.keys()]) if (!now.has(arn)) this.reported.delete(arn);
    for (const machine of skipped) {
      if (this.reported.get(machine.arn) === machine.reason) continue;
      this.reported.set(machine.arn, machine.reason);
      this.options.logger.warn('State machine not made a tool', { ...machine });
    }
  }

  private async registrySchemaOf(tags: Record<string, string>) {
    const schemaArn = tags[this.options.selection.inputSchemaArnTagKey ?? DISCOVERY_TAGS.inputSchemaArn];
    return schemaArn === undefined ? undefined : ((await this.options.schemas.describe(schemaArn)) ?? undefined);
  }
}

/**
 * Why a machine whose selection tag has a value that differs from the selection's only in case or surrounding spaces
 * (`True` for `true`) is not a tool; `undefined` for any other value (`false` opts out on purpose) or none. Values are
 * compared exactly, as the `aws:ResourceTag` condition on the endpoint's StartExecution grant compares them: a machine
 * let in here would be listed and then refused by IAM at its first call.
 */
function nearTagValueReason(tag: { key: string; value: string }, value: string | undefined): string | undefined {
  if (value === undefined || value.trim().toLowerCase() !== tag.value.trim().toLowerCase()) return undefined;
  return (
    `its tag ${tag.key} is '${value}', not '${tag.value}': tag values are compared exactly, case included ` +
    `(as IAM's aws:ResourceTag condition compares them), so set it to '${tag.value}'`
  );
}

/**
 * What the operator's listing shows, the machines that most need a look first (so the report's cap cuts the least
 * interesting): those refused, then the tools, then those passed over by their tag; by name within each.
 */
function decisions(
  named: ReadonlyArray<Pick<DiscoveredMachine, 'name' | 'arn'>>,
  skipped: readonly SkippedMachine[],
  tools: readonly ToolDefinition[],
  untagged: readonly SkippedMachine[],
): MachineDecision[] {
  const nameOf = new Map(named.map((machine) => [machine.arn, machine.name]));
  const decided = (arn: string, decision: { tool: string } | { reason: string }): MachineDecision => ({
    arn,
    name: nameOf.get(arn) ?? arn,
    ...decision,
  });
  const byName = (a: MachineDecision, b: MachineDecision) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return [
    ...skipped.map(({ arn, reason }) => decided(arn, { reason })).sort(byName),
    ...tools.map((tool) => decided(tool.stateMachineArn ?? '', { tool: tool.name })).sort(byName),
    ...untagged.map(({ arn, reason }) => decided(arn, { reason })).sort(byName),
  ];
}

/** Why a machine without the selection's tag value is not a tool: the tag is absent, or has another value. */
function untaggedReason(tag: { key: string; value: string }, value: string | undefined): string {
  return value === undefined
    ? `it has no tag ${tag.key} (the selection takes ${tag.key}=${tag.value})`
    : `its tag ${tag.key} is '${value}', not '${tag.value}'`;
}

/** `work` over every item, {@link READS_AT_ONCE} at a time, in order. */
async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += READS_AT_ONCE)
    results.push(...(await Promise.all(items.slice(start, start + READS_AT_ONCE).map(work))));
  return results;
}
