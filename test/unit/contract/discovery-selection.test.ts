// Which machines a discovery selection takes: by name (a prefix, a list, or either), then by tag; never all of them.
import { describe, expect, it } from 'vitest';
import {
  discoverySelectionProblems,
  isSelected,
  type DiscoverySelection,
} from '../../../lambda/contract/discovery-selection.js';

const machine = (name: string, tags: Record<string, string> = {}) => ({ name, tags });
const tag = { key: 'mcp:tool', value: 'true' };

describe('isSelected', () => {
  it('takes the machines whose name starts with the prefix', () => {
    const selection = { namePrefix: 'orders-' };
    expect(isSelected(selection, machine('orders-refund'))).toBe(true);
    expect(isSelected(selection, machine('billing-orders-refund'))).toBe(false);
  });

  it('takes the machines named in the list, exactly', () => {
    const selection = { names: ['refund', 'invoice'] };
    expect(isSelected(selection, machine('invoice'))).toBe(true);
    expect(isSelected(selection, machine('invoices'))).toBe(false);
  });

  it('takes a machine named either way when both a prefix and a list are given', () => {
    const selection = { namePrefix: 'orders-', names: ['invoice'] };
    expect(isSelected(selection, machine('orders-refund'))).toBe(true);
    expect(isSelected(selection, machine('invoice'))).toBe(true);
    expect(isSelected(selection, machine('billing'))).toBe(false);
  });

  it('takes, of every machine, those with the tag and value when only a tag is given', () => {
    expect(isSelected({ tag }, machine('anything', { 'mcp:tool': 'true' }))).toBe(true);
    expect(isSelected({ tag }, machine('anything', { 'mcp:tool': 'false' }))).toBe(false);
    expect(isSelected({ tag }, machine('anything'))).toBe(false);
  });

  it('takes, of the machines the names select, only those with the tag when both are given', () => {
    const selection = { namePrefix: 'orders-', tag };
    expect(isSelected(selection, machine('orders-refund', { 'mcp:tool': 'true' }))).toBe(true);
    expect(isSelected(selection, machine('orders-refund'))).toBe(false);
    expect(isSelected(selection, machine('billing', { 'mcp:tool': 'true' }))).toBe(false);
  });
});

describe('discoverySelectionProblems', () => {
  it('accepts a prefix, a list, a tag, or any of them together', () => {
    for (const selection of [{ namePrefix: 'a' }, { names: ['a'] }, { tag }, { namePrefix: 'a', names: ['b'], tag }])
      expect(discoverySelectionProblems(selection)).toEqual([]);
  });

  it('refuses a selection of neither names nor a tag, which would take every machine in the account', () => {
    expect(discoverySelectionProblems({})).toEqual([expect.stringMatching(/never selects every machine/)]);
  });

  it('refuses an empty prefix, an empty list or name, and tags outside the Tagging API limits', () => {
    const bad: DiscoverySelection = {
      namePrefix: '',
      names: ['ok', ''],
      tag: { key: 'k'.repeat(129), value: '' },
      inputSchemaArnTagKey: '',
    };
    expect(discoverySelectionProblems(bad)).toHaveLength(5);
  });
});
