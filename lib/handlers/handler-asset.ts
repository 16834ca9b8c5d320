// Where a Lambda handler's prebuilt asset lives. One layout for both ways this code runs: from source in this
// repository (lib/handlers/*.ts) and compiled in an installed package (dist/lib/handlers/*.js), the assets are
// <package root>/dist/assets; the root is found by walking up, so this module's depth under it does not matter.
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Some bundled CommonJS packages call require() for Node built-ins; an ESM bundle has no require unless made. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** The nearest folder holding a package.json: the repository, or node_modules/<this package> once installed. */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));

/** A file of the package as an absolute path, e.g. `projectPath('lambda/handlers/mcp-http.ts')`. */
export function projectPath(relativePath: string): string {
  return join(PACKAGE_ROOT, relativePath);
}

/**
 * The asset folder the build bundles a handler module into: lambda/handlers/mcp-http.ts →
 * dist/assets/lambda/handlers/mcp-http.
 */
export function assetDirectory(entry: string): string {
  const path = relative(PACKAGE_ROOT, entry);
  if (path.startsWith('..') || !path.endsWith('.ts'))
    throw new Error(`A handler entry is a .ts module inside ${PACKAGE_ROOT}, not ${entry}`);
  return join(PACKAGE_ROOT, 'dist', 'assets', path.slice(0, -'.ts'.length));
}

/** The prebuilt asset folder of a handler; fails with the command that builds it when it is missing. */
export function prebuiltAsset(entry: string): string {
  const directory = assetDirectory(entry);
  if (!existsSync(join(directory, 'index.mjs'))) {
    throw new Error(
      `No prebuilt Lambda asset for ${relative(PACKAGE_ROOT, entry)} (looked in ${directory}): ` +
        `run \`npm run build:assets\` in ${PACKAGE_ROOT}`,
    );
  }
  return directory;
}
