// An instance serves its declared tools from the catalog item its deployment wrote: one read at the first request,
// shared by concurrent requests and never repeated; a missing item is logged as the deployment fault it is and refused
// as ToolCatalogMissingError, and tried again by the next request.
import { describe, expect, it, vi } from 'vitest';
import { declaredCatalogKey } from '../../../lambda/contract/declared-tool-catalog.js';
import type { ToolDefinition } from '../../../lambda/contract/tool-definition.js';
import { ToolCatalogMissingError } from '../../../lambda/core/errors.js';
import { DeclaredToolsLoader } from '../../../lambda/service/declared-tools-loader.js';
import { InMemoryDeclaredCatalog } from '../../../lambda/store/in-memory-declared-catalog.js';
import { ToolRegistry } from '../../../lambda/tools/tool-registry.js';
import { RecordingLogger } from '../../support/in-memory-backend.js';

const KEY = declaredCatalogKey('v1');
const tool = (name: string): ToolDefinition => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  stateMachineArn: `arn:aws:states:us-east-1:000000000000:stateMachine:${name}`,
});

function setUp() {
  const catalog = new InMemoryDeclaredCatalog();
  const read = vi.spyOn(catalog, 'read');
  const tools = new ToolRegistry([]);
  const logger = new RecordingLogger();
  return { catalog, read, tools, logger, loader: new DeclaredToolsLoader({ catalog, key: KEY, tools, logger }) };
}

describe('DeclaredToolsLoader', () => {
  it('serves the tools stored under its key, read once however many requests come', async () => {
    const { catalog, read, tools, loader } = setUp();
    await catalog.write(KEY, [tool('refund'), tool('invoice')]);
    await Promise.all([loader.load(), loader.load()]);
    await loader.load();
    expect(tools.list().map((each) => each.name)).toEqual(['refund', 'invoice']);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('refuses with ToolCatalogMissingError and logs an error naming the key when the item is missing', async () => {
    const { loader, logger, tools } = setUp();
    await expect(loader.load()).rejects.toBeInstanceOf(ToolCatalogMissingError);
    expect(logger.records).toEqual([
      expect.objectContaining({ level: 'error', extra: expect.objectContaining({ key: KEY }) }),
    ]);
    expect(tools.list()).toEqual([]);
  });

  it('reads again at the next request after a failed read, and serves the catalog once it is there', async () => {
    const { catalog, read, tools, loader } = setUp();
    await expect(loader.load()).rejects.toThrow(/missing/);
    await catalog.write(KEY, [tool('refund')]);
    await loader.load();
    expect(tools.list().map((each) => each.name)).toEqual(['refund']);
    expect(read).toHaveBeenCalledTimes(2);
  });
});
