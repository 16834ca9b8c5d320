// Builds the package's `mcp-tasks-sfn/durable` subpath into dist/durable: index.mjs, the workflow helpers
// (lambda/handlers/durable-workflow-helpers.ts) bundled with everything they run, the AWS SDK included, as the Lambda
// assets are (the versions the tests ran are the versions a team's function runs, and the team installs nothing for
// them); and index.d.ts with the declarations it reaches, which name no package but the durable execution SDK (the
// package's optional peer: a durable function is written with it anyway).
// Run: `npm run build:durable` (also run by `npm run build`, so by `prepack`).
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { PACKAGE_ROOT } from '../lib/handlers/handler-asset.js';
import { BUNDLE_OPTIONS } from './build-assets.js';

/** The subpath's source module: its exports are the subpath's. */
export const DURABLE_ENTRY = 'lambda/handlers/durable-workflow-helpers.ts';
export const DURABLE_OUT = join(PACKAGE_ROOT, 'dist', 'durable');

/**
 * The packages the subpath's declarations may import. Its JavaScript imports only the durable execution SDK, and
 * only for types, so it is left out of the bundle in case a helper ever imports it at run time: one copy, the
 * function's own.
 */
export const DURABLE_PEERS = ['@aws/durable-execution-sdk-js'];

/** The module specifiers a declaration file imports or re-exports (`import('…')` types included). */
function specifiersOf(declaration: string): string[] {
  // Without comments: a TSDoc example imports the package by name.
  const text = readFileSync(declaration, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  return [...text.matchAll(/\bfrom\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    ([, from, imported]) => (from ?? imported)!,
  );
}

/**
 * The declaration files `entry` reaches through relative imports, and the packages they name. tsc emits a declaration
 * for every module the entry's JavaScript reaches (the DynamoDB stores, the clients); only those its types reach ship.
 */
export function declarationClosure(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    if (!existsSync(file)) throw new Error(`${file} is imported by the durable subpath's declarations but missing`);
    files.add(file);
    for (const specifier of specifiersOf(file)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.d.ts')));
      else
        packages.add(
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        );
    }
  };
  visit(entry);
  return { files: [...files].sort(), packages: [...packages].sort() };
}

/** Compiles the entry's declarations in a scratch folder and copies the ones its types reach into `outdir`. */
async function buildDeclarations(outdir: string): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'durable-declarations-'));
  try {
    const tsc = [
      join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      join(PACKAGE_ROOT, 'tsconfig.durable.json'),
    ];
    // tsc prints its errors on stdout, which a failed execFile keeps out of its message.
    await promisify(execFile)(process.execPath, [...tsc, '--outDir', scratch], { cwd: PACKAGE_ROOT }).catch(
      (error: { stdout?: string }) => {
        throw new Error(`tsc emitted no declarations for the durable subpath:\n${error.stdout ?? String(error)}`);
      },
    );
    const entry = join(scratch, DURABLE_ENTRY.replace(/\.ts$/, '.d.ts'));
    const { files, packages } = declarationClosure(entry);
    const foreign = packages.filter((name) => !name.startsWith('node:') && !DURABLE_PEERS.includes(name));
    // A consumer type-checks with these: a package not among the peers would be missing there.
    if (foreign.length > 0)
      throw new Error(`The durable subpath's declarations import ${foreign.join(', ')}: keep them out of its exports`);
    for (const file of files) {
      const target = join(outdir, relative(scratch, file));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(file, target);
    }
    writeFileSync(join(outdir, 'index.d.ts'), `export * from './${DURABLE_ENTRY.replace(/\.ts$/, '.js')}';\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Builds dist/durable afresh: the bundle and its declarations. */
export async function buildDurable(): Promise<void> {
  rmSync(DURABLE_OUT, { recursive: true, force: true });
  // One file, not an entry and chunks: a team's bundler takes it whole, and nothing in it is worth loading later.
  const { splitting, entryNames, chunkNames, outExtension, ...single } = BUNDLE_OPTIONS;
  await build({
    ...single,
    entryPoints: [join(PACKAGE_ROOT, DURABLE_ENTRY)],
    outfile: join(DURABLE_OUT, 'index.mjs'),
    // No createRequire banner: it reads import.meta.url, which a team's bundler empties when it bundles this into a
    // CommonJS function (NodejsFunction's default), and the load would fail. The check below holds that none is needed.
    banner: {},
    external: DURABLE_PEERS,
  });
  if (readFileSync(join(DURABLE_OUT, 'index.mjs'), 'utf8').includes('Dynamic require of'))
    throw new Error('The durable bundle calls require(): it would fail in an ES module without a createRequire banner');
  await buildDeclarations(DURABLE_OUT);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await buildDurable();
  // On stderr, so that `npm pack --json` (which runs this through prepack) prints only its JSON on stdout.
  console.error(`built ${relative(process.cwd(), DURABLE_OUT)} in ${Date.now() - started} ms`);
}
