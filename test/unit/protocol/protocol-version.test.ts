import { describe, expect, it } from 'vitest';
import { isAtLeast, ProtocolVersion } from '../../../lambda/protocol/protocol-version.js';

describe('isAtLeast', () => {
  it('compares revisions by their dates', () => {
    expect(isAtLeast('2025-11-25', ProtocolVersion.Tasks)).toBe(true);
    expect(isAtLeast('2026-07-28', ProtocolVersion.Tasks)).toBe(true);
    expect(isAtLeast('2025-06-18', ProtocolVersion.Tasks)).toBe(false);
    expect(isAtLeast('2024-11-05', ProtocolVersion.Elicitation)).toBe(false);
  });

  it('calls nothing that is not a revision later than any revision', () => {
    // As strings, each of these sorts after '2025-11-25'.
    for (const version of ['9', '2025-11-25x', '2025-13-01', 'latest', '2025-11-3', ' ', ''])
      expect(isAtLeast(version, ProtocolVersion.Tasks), version).toBe(false);
    expect(isAtLeast(undefined, ProtocolVersion.Tasks)).toBe(false);
  });

  it('refuses a floor that is not a revision, as a programming error', () => {
    expect(() => isAtLeast('2025-11-25', 'latest')).toThrow(/Not a protocol revision/);
  });
});
