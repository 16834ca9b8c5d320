// The cheap era check that keeps a 2025-era cold start off the 2.x SDK never calls legacy a request the
// SDK's own rule (isLegacyRequest) would serve as modern: every case is checked against the SDK itself.
import { isLegacyRequest, MissingRequiredClientCapabilityError } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { toMcpError } from '../../../lambda/protocol/protocol-errors.js';
import { eraOf, isSurelyLegacy } from '../../../lambda/protocol/era-router.js';

const CLAIM = 'io.modelcontextprotocol/protocolVersion';

function post(body: unknown, protocolVersion?: string): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (protocolVersion !== undefined) headers['mcp-protocol-version'] = protocolVersion;
  return new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};

const SURELY_LEGACY: Record<string, { body: unknown; header?: string }> = {
  'initialize without a header': { body: initialize },
  'tools/list with a 2025-11-25 header': {
    body: { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
    header: '2025-11-25',
  },
  'tools/call with a progress token': {
    body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 7 } } },
    header: '2025-06-18',
  },
  'a notification': { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, header: '2025-03-26' },
};

const ASK_THE_SDK: Record<string, { body: unknown; header?: string }> = {
  'a modern header': { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, header: '2026-07-28' },
  'an unknown header': { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, header: '2099-01-01' },
  'an envelope claim': {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [CLAIM]: '2026-07-28' } } },
  },
  'an envelope claim on initialize': {
    body: { ...initialize, params: { ...initialize.params, _meta: { [CLAIM]: 1 } } },
  },
  'no jsonrpc version': { body: { id: 1, method: 'tools/list' } },
  'a null id': { body: { jsonrpc: '2.0', id: null, method: 'tools/list' } },
  'array params': { body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] } },
  'a _meta that is not an object': { body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 'x' } } },
};

describe('isSurelyLegacy', () => {
  it.each(Object.entries(SURELY_LEGACY))('calls %s legacy, as the SDK does', async (_, { body, header }) => {
    expect(isSurelyLegacy(post(body, header), body)).toBe(true);
    expect(await isLegacyRequest(post(body, header), body)).toBe(true);
  });

  it.each(Object.entries(ASK_THE_SDK))('leaves %s to the SDK', (_, { body, header }) => {
    expect(isSurelyLegacy(post(body, header), body)).toBe(false);
  });

  it('calls GET and DELETE legacy, as the SDK does', async () => {
    for (const method of ['GET', 'DELETE']) {
      const request = () => new Request('http://localhost/mcp', { method });
      expect(isSurelyLegacy(request(), undefined)).toBe(true);
      expect(await isLegacyRequest(request(), undefined)).toBe(true);
    }
  });
});

describe('toMcpError with the 2.x SDK loaded', () => {
  it('keeps the code, message and data of an SDK protocol error, told by its shape', () => {
    const error = new MissingRequiredClientCapabilityError({ requiredCapabilities: { elicitation: {} } });
    const logger = { info: () => {}, warn: () => {}, error: () => {} };
    expect(toMcpError(error, logger)).toMatchObject({ code: error.code, message: error.message, data: error.data });
  });
});

describe('eraOf', () => {
  const tasksList = { jsonrpc: '2.0', id: 'a', method: 'tools/list' };
  const claimed = { jsonrpc: '2.0', id: 'b', method: 'tools/list', params: { _meta: { [CLAIM]: '2026-07-28' } } };

  it('serves a surely-legacy request as legacy without loading the SDK rule', async () => {
    let loads = 0;
    const sdkRule = async () => (loads++, async () => false);
    expect(await eraOf(post(tasksList, '2025-11-25'), tasksList, sdkRule)).toBe('legacy');
    expect(loads).toBe(0);
  });

  it('leaves any other request to the SDK rule, whichever way it decides', async () => {
    expect(await eraOf(post(claimed, '2026-07-28'), claimed, async () => isLegacyRequest)).toBe('modern');
    expect(await eraOf(post(claimed, '2026-07-28'), claimed, async () => async () => true)).toBe('legacy');
  });
});
