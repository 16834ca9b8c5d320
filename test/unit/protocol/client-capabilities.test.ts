import { describe, expect, it } from 'vitest';
import { missingCapabilities } from '../../../lambda/protocol/client-capabilities.js';

const TASKS = 'io.modelcontextprotocol/tasks';

describe('missing client capabilities', () => {
  it('finds nothing missing when every required capability and extension is declared', () => {
    expect(
      missingCapabilities(
        { sampling: {}, extensions: { [TASKS]: {} } },
        { sampling: {}, elicitation: {}, extensions: { [TASKS]: {}, other: {} } },
      ),
    ).toBeUndefined();
  });

  it('names an undeclared capability in the ClientCapabilities shape', () => {
    expect(missingCapabilities({ sampling: {} }, { elicitation: {} })).toEqual({ sampling: {} });
  });

  it('names only the undeclared extensions', () => {
    expect(
      missingCapabilities({ extensions: { [TASKS]: {}, 'acme/x': {} } }, { extensions: { 'acme/x': {} } }),
    ).toEqual({ extensions: { [TASKS]: {} } });
    expect(missingCapabilities({ extensions: { [TASKS]: {} } }, {})).toEqual({ extensions: { [TASKS]: {} } });
  });

  it('requires nothing when nothing is required', () => {
    expect(missingCapabilities({}, {})).toBeUndefined();
  });
});
