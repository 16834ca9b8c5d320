// The settings only the deployed MCP handler reads from its environment.
import { describe, expect, it } from 'vitest';
import { MCP_HTTP_ENV } from '../../../lambda/contract/environment-names.js';
import { mcpHttpOptionsFromEnvironment } from '../../../lambda/handlers/mcp-http-environment.js';

describe('MCP handler options', () => {
  it('have no open-endpoint owner and no CORS origins unless deployed so', () => {
    expect(mcpHttpOptionsFromEnvironment({})).toEqual({ openEndpointOwner: null, corsAllowOrigins: [] });
  });

  it('read the open-endpoint owner and the comma-separated origins', () => {
    expect(
      mcpHttpOptionsFromEnvironment({
        [MCP_HTTP_ENV.openEndpointOwner]: 'anonymous',
        [MCP_HTTP_ENV.corsAllowOrigins]: 'https://a.example, https://b.example',
      }),
    ).toEqual({
      openEndpointOwner: 'anonymous',
      corsAllowOrigins: ['https://a.example', 'https://b.example'],
    });
  });
});
