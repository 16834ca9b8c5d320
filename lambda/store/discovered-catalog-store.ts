// The discovered-tools catalog contract: the tools the account's own state machines became at the last refresh, kept
// where every instance of the MCP function reads it with one read, instead of each listing the account; and, apart
// from it, what that refresh decided of each machine it looked at, for the operator (`mcp-tasks discovery`).
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

/** What a refresh decided of one machine it looked at: the tool it became, or why it is none. */
export interface MachineDecision {
  readonly arn: string;
  readonly name: string;
  /** The tool's name, when the machine is one. */
  readonly tool?: string;
  /** Why the machine is not a tool, when it is not (cut to {@link MAX_REASON_LENGTH} characters). */
  readonly reason?: string;
}

/**
 * The last refresh's decisions. Operator information: a refused machine's ARN and reason are the account's, never
 * served to an MCP client (the MCP function never reads this).
 */
export interface DiscoveryReport {
  /** At most {@link MAX_REPORTED_MACHINES}, in the order the refresher gave them. */
  readonly machines: readonly MachineDecision[];
  /** How many decisions were left out so that the report fits one item ({@link cappedReport}). */
  readonly omitted: number;
  /** Epoch ms of the refresh that made it. */
  readonly refreshedAt: number;
}

/** The most decisions a report keeps, the refused ones first. */
export const MAX_REPORTED_MACHINES = 400;
export const MAX_REASON_LENGTH = 300;
/**
 * The most UTF-8 bytes a report's decisions take as JSON. Names and tag values (which reasons quote) may be any
 * Unicode, up to 3 bytes a character, so a count of machines alone does not keep the item inside DynamoDB's 400 KB:
 * this leaves room for the key and the other attributes.
 */
export const MAX_REPORT_BYTES = 350_000;

/** A reason cut to {@link MAX_REASON_LENGTH} characters, whole code points, ending in an ellipsis when cut. */
function cutReason(decision: MachineDecision): MachineDecision {
  if (decision.reason === undefined) return decision;
  const characters = Array.from(decision.reason);
  if (characters.length <= MAX_REASON_LENGTH) return decision;
  return { ...decision, reason: `${characters.slice(0, MAX_REASON_LENGTH - 1).join('')}…` };
}

/**
 * `machines` cut to what a report holds: in their order, each reason cut to its length, as many as fit both
 * {@link MAX_REPORTED_MACHINES} and {@link MAX_REPORT_BYTES}; `omitted` counts the rest.
 */
export function cappedReport(machines: readonly MachineDecision[], refreshedAt: number): DiscoveryReport {
  const kept: MachineDecision[] = [];
  let bytes = 2; // the JSON array's brackets
  for (const decision of machines) {
    if (kept.length === MAX_REPORTED_MACHINES) break;
    const cut = cutReason(decision);
    const size = Buffer.byteLength(JSON.stringify(cut), 'utf8') + 1; // and its comma
    if (bytes + size > MAX_REPORT_BYTES) break;
    kept.push(cut);
    bytes += size;
  }
  return { machines: kept, omitted: machines.length - kept.length, refreshedAt };
}

export interface DiscoveredCatalogStore {
  /** The catalog as last written, or `null` when none was. One read. */
  read(): Promise<StoredCatalog | null>;
  /**
   * Stores `tools` as the catalog, refreshed at `at` (and changed at `at` when they differ from the catalog stored
   * before; none before counts as a change). `changed` tells which.
   */
  write(tools: readonly ToolDefinition[], at: number): Promise<{ readonly changed: boolean }>;
  /**
   * Replaces the report with `machines` (capped: {@link cappedReport}) as decided by the refresh at `at`. Kept apart
   * from the tools, so the MCP function's read of them neither grows with the account nor holds refused machines.
   */
  writeReport(machines: readonly MachineDecision[], at: number): Promise<void>;
  /** The report as last written, or `null` when none was. One read. */
  readReport(): Promise<DiscoveryReport | null>;
}
