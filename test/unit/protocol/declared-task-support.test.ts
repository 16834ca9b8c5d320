import { describe, expect, it } from 'vitest';
import {
  APPS_EXTENSION,
  sessionDeclaresApps,
  sessionDeclaresTasks,
  sessionIdForInitialize,
} from '../../../lambda/protocol/declared-task-support.js';

const initialize = (capabilities: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'unit', version: '1' } },
});

describe('the session id a 2025 initialize is answered with', () => {
  it('carries whether the client declared tasks and whether it declared MCP Apps, each on its own', () => {
    const apps = { [APPS_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] } };
    for (const [capabilities, tasks, declaresApps] of [
      [{}, false, false],
      [{ tasks: {} }, true, false],
      [{ extensions: apps }, false, true],
      [{ tasks: {}, extensions: apps }, true, true],
    ] as const) {
      const sessionId = sessionIdForInitialize(initialize(capabilities));
      expect([sessionDeclaresTasks(sessionId), sessionDeclaresApps(sessionId)]).toEqual([tasks, declaresApps]);
    }
  });

  it('declares nothing for a request without one, or with a session id made elsewhere', () => {
    expect(sessionDeclaresApps(undefined)).toBe(false);
    expect(sessionDeclaresApps('apps-1234')).toBe(false);
    expect(sessionDeclaresTasks(null)).toBe(false);
  });
});
