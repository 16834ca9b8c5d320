// docs/deploy.md tells a platform team what the example stack creates before its first deploy. The counts there are
// read back and compared with the synthesized template, so a construct that gains or loses a resource cannot leave
// the docs behind.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exampleStack } from './cdk-app.js';

const INVENTORY_MARKER = '<!-- first-deploy inventory:';

interface InventoryRow {
  readonly count: number;
  /** The CloudFormation types the row counts; none for the row of all resources. */
  readonly types: readonly string[];
}

/** The rows of the table that follows the marker: `| count | types in backticks | what they are |`. */
function documentedInventory(markdown: string): InventoryRow[] {
  const start = markdown.indexOf(INVENTORY_MARKER);
  if (start < 0) throw new Error(`docs/deploy.md has no "${INVENTORY_MARKER}" table`);
  const lines = markdown.slice(start).split('\n').slice(1);
  const tableLines = lines.filter((line) => line.trim() !== '');
  const rows: InventoryRow[] = [];
  for (const line of tableLines) {
    if (!line.trim().startsWith('|')) break;
    const [count, types] = line
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim());
    if (!count || !/^\d+$/.test(count)) continue;
    rows.push({
      count: Number(count),
      types: [...(types ?? '').matchAll(/`([A-Za-z:]+)`/g)].map((match) => match[1]!),
    });
  }
  return rows;
}

describe('the first-deploy inventory in docs/deploy.md', () => {
  const resources = Object.values(exampleStack().template.toJSON()['Resources'] as Record<string, { Type: string }>);
  const countOf = (type: string) => resources.filter((resource) => resource.Type === type).length;
  const rows = documentedInventory(readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8'));

  it('gives the number of resources the example stack synthesizes', () => {
    const total = rows.find((row) => row.types.length === 0);
    expect(total?.count).toBe(resources.length);
  });

  it('counts each row’s resource types as the template has them', () => {
    const typed = rows.filter((row) => row.types.length > 0);
    expect(typed.length).toBeGreaterThan(5);
    for (const row of typed) {
      const counted = row.types.reduce((sum, type) => sum + countOf(type), 0);
      expect({ types: row.types, count: counted }).toEqual({ types: row.types, count: row.count });
    }
  });

  it('names every resource type the template has, once', () => {
    const documented = rows.flatMap((row) => row.types);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...new Set(resources.map((resource) => resource.Type))].sort()).toEqual([...documented].sort());
  });
});
