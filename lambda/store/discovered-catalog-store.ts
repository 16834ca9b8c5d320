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
  /** How many decisions were left out past {@link MAX_REPORTED_MACHINES}, so the report fits one item. */
  readonly omitted: number;
  /** Epoch ms of the refresh that made it. */
  readonly refreshedAt: number;
}

/**
 * The most decisions a report keeps. Each is at most about 600 bytes (an ARN, a name of 80, a reason of
 * {@link MAX_REASON_LENGTH}), so 400 stay well inside DynamoDB's 400 KB item.
 */
export const MAX_REPORTED_MACHINES = 400;
export const MAX_REASON_LENGTH = 300;

/** `machines` cut to what a report holds: the first {@link MAX_REPORTED_MACHINES}, each reason cut to its length. */
export function cappedReport(machines: readonly MachineDecision[], refreshedAt: number): DiscoveryReport {
  return {
    machines: machines
      .slice(0, MAX_REPORTED_MACHINES)
      .map((decision) =>
        decision.reason !== undefined && decision.reason.length > MAX_REASON_LENGTH
          ? { ...decision, reason: `${decision.reason.slice(0, MAX_REASON_LENGTH - 1)}…` }
          : decision,
      ),
    omitted: Math.max(0, machines.length - MAX_REPORTED_MACHINES),
    refreshedAt,
  };
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
