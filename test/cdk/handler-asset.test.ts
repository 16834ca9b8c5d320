// Where HandlerFunction finds a handler's prebuilt bundle, and which modules the build bundles.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handlerEntries } from '../../scripts/build-assets.js';
import { assetDirectory, PACKAGE_ROOT, prebuiltAsset, projectPath } from '../../lib/handlers/handler-asset.js';

describe('handler assets', () => {
  it('finds the package root from the module itself: this repository when run from source', () => {
    expect(projectPath('package.json')).toBe(join(PACKAGE_ROOT, 'package.json'));
    expect(projectPath('lib/handlers/handler-asset.ts')).toBe(
      join(PACKAGE_ROOT, 'lib', 'handlers', 'handler-asset.ts'),
    );
  });

  it('keep each handler in a folder of its own under dist/assets, named by its module path', () => {
    expect(assetDirectory(projectPath('lambda/handlers/mcp-http.ts'))).toBe(
      join(PACKAGE_ROOT, 'dist/assets/lambda/handlers/mcp-http'),
    );
  });

  it('refuse an entry outside the package or not a TypeScript module', () => {
    expect(() => assetDirectory('/elsewhere/handler.ts')).toThrow(/inside/);
    expect(() => assetDirectory(projectPath('lambda/handlers/mcp-http.js'))).toThrow(/\.ts module/);
  });

  it('name the build command when a bundle is missing', () => {
    expect(() => prebuiltAsset(projectPath('lambda/handlers/no-such-handler.ts'))).toThrow(
      /No prebuilt Lambda asset for lambda\/handlers\/no-such-handler\.ts.*npm run build:assets/,
    );
  });

  it('are built for every module in a handlers or steps folder that exports handler, and only those', () => {
    const entries = handlerEntries().map((entry) => entry.slice(PACKAGE_ROOT.length + 1));
    expect(entries).toEqual(
      expect.arrayContaining([
        'lambda/handlers/mcp-http.ts',
        'lambda/handlers/status-sync.ts',
        'lambda/example-tools/steps/text-stats.ts',
        'lambda/conformance-tools/steps/greet.ts',
      ]),
    );
    expect(entries).not.toContain('lambda/handlers/environment.ts');
    expect(entries).not.toContain('lambda/example-tools/steps/words.ts');
    expect(entries.every((entry) => entry.split('/').some((folder) => ['handlers', 'steps'].includes(folder)))).toBe(
      true,
    );
  });
});
