// `npm run build:cli`: bundles the CLI into one file that runs with plain node (no tsx, no TypeScript), the target
// of the package's `mcp-tasks` bin. The banner gives the ESM bundle a `require` for the CommonJS code it inlines.
import { build } from 'esbuild';
import { chmod } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Where the bundle goes: package.json's `bin` points here. */
export const CLI_BUNDLE = fileURLToPath(new URL('../dist/cli/mcp-tasks.js', import.meta.url));

export async function buildCli(outfile: string = CLI_BUNDLE): Promise<string> {
  await build({
    entryPoints: [fileURLToPath(new URL('./main.ts', import.meta.url))],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: {
      js:
        '#!/usr/bin/env node\n' +
        "import { createRequire as __createRequire } from 'node:module';\n" +
        'const require = __createRequire(import.meta.url);',
    },
    logLevel: 'warning',
  });
  await chmod(outfile, 0o755);
  return outfile;
}

// Run as a script (npm run build:cli), not when a test imports buildCli.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await buildCli();
