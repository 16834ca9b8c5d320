// The declared tool catalog item's layout, as the construct writes it and the store reads it: the tools packed, their
// state machine entries beside them in catalog order.
import { describe, expect, it } from 'vitest';
import {
  declaredCatalogAttributes,
  DECLARED_CATALOG_ATTRIBUTE,
  packToolDescriptions,
  stateMachineEntry,
  unpackToolCatalog,
} from '../../../lambda/contract/declared-tool-catalog.js';
import { workflowOfTool } from '../../../lambda/contract/tool-definition.js';
import { EXAMPLE_TOOLS } from '../../../lambda/example-tools/example-tool-catalog.js';

const descriptions = EXAMPLE_TOOLS.map(({ name, title, description, inputSchema }) => ({
  name,
  title,
  description,
  inputSchema,
}));
const arns = EXAMPLE_TOOLS.map((tool) => `arn:aws:states:eu-west-1:123456789012:stateMachine:${tool.name}`);

describe('declared tool catalog item', () => {
  it('round-trips every tool, joined to its state machine by position', () => {
    expect(unpackToolCatalog(packToolDescriptions(descriptions), arns.join(','))).toEqual(
      descriptions.map((tool, index) => ({ ...tool, stateMachineArn: arns[index] })),
    );
  });

  it('gives an EXPRESS tool its wrapper as the machine a task runs, and its own machine for plain calls', () => {
    const [first, second] = descriptions;
    const wrapper = `${arns[1]}-wrapper`;
    const entries = [stateMachineEntry(arns[0]!), stateMachineEntry(wrapper, arns[1])].join(',');
    expect(unpackToolCatalog(packToolDescriptions([first!, second!]), entries)).toEqual([
      { ...first, stateMachineArn: arns[0] },
      { ...second, stateMachineArn: wrapper, expressStateMachineArn: arns[1] },
    ]);
  });

  it("gives a tool whose entry is a function's qualified ARN that function as its durable workflow", () => {
    const [first, second] = descriptions;
    const fn = 'arn:aws:lambda:eu-west-1:123456789012:function:durable-review:live';
    const unpacked = unpackToolCatalog(packToolDescriptions([first!, second!]), [arns[0], fn].join(','));
    expect(unpacked).toEqual([
      { ...first, stateMachineArn: arns[0] },
      { ...second, durableFunctionArn: fn },
    ]);
    expect(unpacked.map(workflowOfTool)).toEqual([
      { engine: 'step-functions', arn: arns[0] },
      { engine: 'durable-functions', arn: fn },
    ]);
  });

  it("writes a durable tool's entry as its function's ARN, which unpacks to the same tool", () => {
    const fn = 'arn:aws:lambda:eu-west-1:123456789012:function:durable-review:7';
    const tools = [
      { ...descriptions[0]!, stateMachineArn: arns[0]! },
      { ...descriptions[1]!, durableFunctionArn: fn },
    ];
    const attributes = declaredCatalogAttributes(tools);
    expect(attributes[DECLARED_CATALOG_ATTRIBUTE.stateMachines]).toBe(`${arns[0]},${fn}`);
    expect(
      unpackToolCatalog(
        attributes[DECLARED_CATALOG_ATTRIBUTE.tools]!,
        attributes[DECLARED_CATALOG_ATTRIBUTE.stateMachines]!,
      ),
    ).toEqual(tools);
  });

  it('makes the attributes of tools whose machines are known, which unpack to the same tools', () => {
    const tools = descriptions.map((tool, index) => ({ ...tool, stateMachineArn: arns[index]! }));
    const attributes = declaredCatalogAttributes(tools);
    expect(
      unpackToolCatalog(
        attributes[DECLARED_CATALOG_ATTRIBUTE.tools]!,
        attributes[DECLARED_CATALOG_ATTRIBUTE.stateMachines]!,
      ),
    ).toEqual(tools);
  });

  it('packs smaller than the JSON it packs', () => {
    expect(packToolDescriptions(descriptions).length).toBeLessThan(JSON.stringify(descriptions).length);
  });

  it('refuses entries that do not match the tools', () => {
    expect(() => unpackToolCatalog(packToolDescriptions(descriptions), arns.slice(1).join(','))).toThrow(
      new RegExp(`lists ${EXAMPLE_TOOLS.length - 1} state machines for ${EXAMPLE_TOOLS.length} tools`),
    );
  });
});
