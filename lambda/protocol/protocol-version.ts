// MCP protocol versions as versions: a revision is a date (YYYY-MM-DD), so two are compared by that date, and a string
// that is no such date is no version at all (never "later" than any). String comparison would call '2025-11-25x' or
// '9' later than every real revision.

export const ProtocolVersion = {
  /** Elicitation came in: a client on it or later may be asked while its request waits. */
  Elicitation: '2025-06-18',
  /** Tasks came in (the 2025-11-25 dialect). */
  Tasks: '2025-11-25',
} as const;

const REVISION = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The revision's date as a number (YYYYMMDD), or `undefined` when `version` is not a revision. */
function revisionOf(version: string | undefined): number | undefined {
  const match = version === undefined ? null : REVISION.exec(version.trim());
  if (match === null) return undefined;
  const [, year, month, day] = match;
  const date = Number(`${year}${month}${day}`);
  const valid = Number(month) >= 1 && Number(month) <= 12 && Number(day) >= 1 && Number(day) <= 31;
  return valid ? date : undefined;
}

/** True when `version` is a revision no earlier than `floor`; false for anything that is not a revision. */
export function isAtLeast(version: string | undefined, floor: string): boolean {
  const revision = revisionOf(version);
  const least = revisionOf(floor);
  if (least === undefined) throw new Error(`Not a protocol revision: ${floor}`);
  return revision !== undefined && revision >= least;
}
