// Bundles every Lambda handler into a prebuilt asset, dist/assets/<handler path>/index.mjs plus the chunks it loads on
// demand, which HandlerFunction deploys as it is. Prebuilt, so the published package needs neither esbuild nor the
// handlers' dependencies in the app that installs it, and what the tests synthesize is byte for byte what ships.
// Run: `npm run build:assets` (also run by `npm run build`, by cdk.json's build hook before synth, and by the
// test run's global setup).
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { assetDirectory, ESM_REQUIRE_BANNER, PACKAGE_ROOT } from '../lib/handlers/handler-asset.js';
import { bundleWithColdStartChunk } from './cold-start-chunks.js';

/**
 * Minified ESM for Node 22 with linked source maps: an entry file, index.mjs, and chunks. What a handler reaches only
 * through `import()` (the AWS SDK for the MCP endpoint, Powertools Tracer when tracing is off) goes into chunks that
 * load when first needed, so a cold start parses only what its first request runs; what it does load comes in as few
 * files as esbuild allows (cold-start-chunks.ts).
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  splitting: true,
  entryNames: 'index',
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  target: 'node22',
  mainFields: ['module', 'main'],
  banner: { js: ESM_REQUIRE_BANNER },
  minify: true,
  sourcemap: true,
  // Stack traces name files and lines; the sources themselves would triple the package.
  sourcesContent: false,
  // Nothing external, the AWS SDK included: the versions the tests ran are the versions deployed.
  external: [],
  // One copy of Ajv in the bundle, not two (see the shim's header).
  alias: { '@modelcontextprotocol/server/_shims': join(PACKAGE_ROOT, 'lambda/protocol/server-sdk-shims.ts') },
  logLevel: 'warning',
} as const satisfies BuildOptions;

/**
 * The folders under lambda/ whose modules are Lambda functions: `handlers` (the entry points the construct deploys) and
 * `steps` (the tools' functions their state machines' Task states invoke).
 */
const FUNCTION_FOLDERS = ['handlers', 'steps'];

/** A handler is a module in one of those folders that exports `handler`; no list to keep in step. */
export function handlerEntries(root = join(PACKAGE_ROOT, 'lambda')): string[] {
  const entries: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    const folders = relative(root, path).split(sep);
    if (!entry.isFile() || !path.endsWith('.ts') || !FUNCTION_FOLDERS.some((folder) => folders.includes(folder)))
      continue;
    if (/^export (const|async function|function) handler\b/m.test(readFileSync(path, 'utf8'))) entries.push(path);
  }
  return entries.sort();
}

/** Bundles each handler into its own folder (a Lambda asset is a folder); returns the folders. */
export async function buildAssets(entries = handlerEntries()): Promise<string[]> {
  rmSync(join(PACKAGE_ROOT, 'dist', 'assets'), { recursive: true, force: true });
  return Promise.all(
    entries.map(async (entry) => {
      const outdir = assetDirectory(entry);
      await bundleWithColdStartChunk(BUNDLE_OPTIONS, PACKAGE_ROOT, entry, outdir);
      if (!existsSync(join(outdir, 'index.mjs'))) throw new Error(`esbuild wrote no bundle for ${entry}`);
      return outdir;
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const folders = await buildAssets();
  // On stderr, so that `npm pack --json` (which runs this through prepack) prints only its JSON on stdout.
  console.error(
    `built ${folders.length} Lambda assets under ` +
      `${relative(process.cwd(), join(PACKAGE_ROOT, 'dist', 'assets'))} in ` +
      `${Date.now() - started} ms`,
  );
}
