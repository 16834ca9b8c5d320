// What `mcp-tasks discovery` prints of the refresher's report: when it ran, then one line per machine (its tool, or why
// it is none), and how many the report left out.
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../../cli/discovery-command.js';

const ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:';

describe('renderReport', () => {
  it('prints one line per machine under the time of the refresh, names in a column', () => {
    const text = renderReport({
      machines: [
        { arn: `${ARN}orders-bad`, name: 'orders-bad', reason: "its tag mcp:tool is 'True', not 'true'" },
        { arn: `${ARN}refund`, name: 'refund', tool: 'refund' },
      ],
      omitted: 0,
      refreshedAt: Date.UTC(2026, 11, 7, 7, 0, 0),
    });
    expect(text.split('\n')).toEqual([
      'Refresh of 2026-12-07T07:00:00.000Z: 2 machines looked at; tools: 1.',
      "orders-bad  not a tool: its tag mcp:tool is 'True', not 'true'",
      'refund      tool refund',
    ]);
  });

  it('counts the machines the report left out, and says so on a last line', () => {
    const text = renderReport({
      machines: [{ arn: `${ARN}a`, name: 'a', tool: 'a' }],
      omitted: 12,
      refreshedAt: 0,
    });
    expect(text).toMatch(/^Refresh of 1970-01-01T00:00:00\.000Z: 13 machines looked at; tools: 1\./);
    expect(text.split('\n').at(-1)).toBe(
      '(12 more not listed: a report keeps what fits one item, up to 400, refused first)',
    );
  });
});
