// The source a request is counted under by the OAuth proxy's per-source limits: an IPv4 address, or an IPv6 /64.
import { describe, expect, it } from 'vitest';
import { countingSource } from '../../../lambda/oauth/source-limits.js';

describe('countingSource', () => {
  it('counts IPv6 addresses of one /64 as one source', () => {
    expect(countingSource('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(countingSource('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
  });

  it('keeps IPv6 addresses of different /64s apart', () => {
    expect(countingSource('2001:db8:1:3::1')).not.toBe(countingSource('2001:db8:1:2::1'));
  });

  it('counts an IPv4 address, also written as IPv4-mapped IPv6, as itself', () => {
    expect(countingSource('203.0.113.7')).toBe('203.0.113.7');
    expect(countingSource('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('leaves a source that is no address (an adapter that knows none) as it is', () => {
    expect(countingSource('unknown')).toBe('unknown');
  });
});
