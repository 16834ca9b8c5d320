// `npm run build:cli`: bundles the CLI into one file that runs with plain node (no tsx, no TypeScript), the target
// of the package's `mcp-tasks` bin. The banner gives the ESM bundle a `require` for the CommonJS code it inlines.
import { build } from 'esbuild';
import { chmod } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export const CLI_BUNDLE = fileURLToPath(new URL('../dist/cli/mcp-tasks.js', import.meta.url));

await build({
  entryPoints: [fileURLToPath(new URL('./main.ts', import.meta.url))],
  outfile: CLI_BUNDLE,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
await chmod(CLI_BUNDLE, 0o755);
