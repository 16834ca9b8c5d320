// The tool catalog as the construct packs it into the MCP function's environment and the handler unpacks it.
import { describe, expect, it } from 'vitest';
import { ENV, MCP_HTTP_ENV } from '../../lambda/contract/environment-names.js';
import { mcpHttpOptionsFromEnvironment, withUnpackedToolCatalog } from '../../lambda/handlers/mcp-http-environment.js';
import { packToolCatalog, stateMachineEntry, unpackToolCatalog } from '../../lambda/contract/packed-tool-catalog.js';
import { EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import { workflowOfTool } from '../../lambda/contract/tool-definition.js';

const descriptions = EXAMPLE_TOOLS.map(({ name, title, description, inputSchema }) => ({
  name,
  title,
  description,
  inputSchema,
}));
const arns = EXAMPLE_TOOLS.map((tool) => `arn:aws:states:eu-west-1:123456789012:stateMachine:${tool.name}`);

describe('packed tool catalog', () => {
  it('round-trips every tool, joined to its state machine by position', () => {
    expect(unpackToolCatalog(packToolCatalog(descriptions), arns.join(','))).toEqual(
      descriptions.map((tool, index) => ({ ...tool, stateMachineArn: arns[index] })),
    );
  });

  it("gives a tool whose entry is a function's qualified ARN that function as its durable workflow", () => {
    const [first, second] = descriptions;
    const fn = 'arn:aws:lambda:eu-west-1:123456789012:function:durable-review:live';
    const unpacked = unpackToolCatalog(packToolCatalog([first!, second!]), [arns[0], fn].join(','));
    expect(unpacked).toEqual([
      { ...first, stateMachineArn: arns[0] },
      { ...second, durableFunctionArn: fn },
    ]);
    expect(unpacked.map(workflowOfTool)).toEqual([
      { engine: 'step-functions', arn: arns[0] },
      { engine: 'durable-functions', arn: fn },
    ]);
  });

  it('gives an EXPRESS tool its wrapper as the machine a task runs, and its own machine for plain calls', () => {
    const [first, second] = descriptions;
    const wrapper = `${arns[1]}-wrapper`;
    const entries = [stateMachineEntry(arns[0]!), stateMachineEntry(wrapper, arns[1])].join(',');
    expect(unpackToolCatalog(packToolCatalog([first!, second!]), entries)).toEqual([
      { ...first, stateMachineArn: arns[0] },
      { ...second, stateMachineArn: wrapper, expressStateMachineArn: arns[1] },
    ]);
  });

  it('is smaller than the JSON it packs', () => {
    expect(packToolCatalog(descriptions).length).toBeLessThan(JSON.stringify(descriptions).length);
  });

  it('refuses a list of ARNs that does not match the tools', () => {
    expect(() => unpackToolCatalog(packToolCatalog(descriptions), arns.slice(1).join(','))).toThrow(
      new RegExp(`lists ${EXAMPLE_TOOLS.length - 1} ARNs for ${EXAMPLE_TOOLS.length} tools`),
    );
  });

  it('fills in TOOL_CATALOG for configFromEnvironment, and leaves a plain TOOL_CATALOG alone', () => {
    const packed = {
      [MCP_HTTP_ENV.packedToolCatalog]: packToolCatalog(descriptions),
      [MCP_HTTP_ENV.toolStateMachineArns]: arns.join(','),
    };
    expect(JSON.parse(withUnpackedToolCatalog(packed)[ENV.toolCatalog]!)).toHaveLength(EXAMPLE_TOOLS.length);
    expect(withUnpackedToolCatalog({ ...packed, [ENV.toolCatalog]: '[]' })[ENV.toolCatalog]).toBe('[]');
  });
});

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
