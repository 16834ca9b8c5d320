// One handler's bundle with what its cold start loads in as few files as esbuild allows. esbuild gives each set of
// entry points that reach a module a chunk of its own, and every `import()` target counts as an entry point: a module
// that the entry and some lazily loaded parts both import lands in a chunk named after that set. The MCP endpoint's
// cold start loaded 21 files that way, 17 of them under 6 KiB (the task model, its errors, the clock, ...), and every
// ES module file costs its load, link and source map (about 0.4 ms of CPU each, measured on 20 small files against one
// of the same code). esbuild has no option to merge chunks, so the build is run twice: the first finds the project
// modules that the cold start loads from two or more shared chunks; the second has every lazily loaded project module
// import them (for their side effects, which esbuild keeps, as the package declares no `sideEffects`), which gives all
// of them the same set of entry points and so one chunk (where there is nothing to merge, the first build is written).
// They load at cold start either way, and an import for side effects keeps no export alive that the first build
// dropped: only the number of files changes (the endpoint: 21 to 7, see docs/benchmark.md).
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';

/** The module every lazily loaded project module imports: it imports the shared cold-start modules. */
const COLD_START_MODULES = 'cold-start-modules';

/** Project source (not node_modules), which the second build may add an import to. */
const isProjectSource = (input: string): boolean => !input.includes('node_modules') && /\.[cm]?ts$/.test(input);

/** The output files the entry loads at cold start: its own file and the chunks it imports statically. */
export function coldStartOutputs(metafile: Metafile, entryOutput: string): Set<string> {
  const loaded = new Set<string>();
  const visit = (file: string): void => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const imported of metafile.outputs[file]!.imports)
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  visit(entryOutput);
  return loaded;
}

/**
 * What the first build says: the project modules a cold start loads from chunks shared with lazily loaded parts, and
 * those parts' own project modules (the `import()` targets), as paths relative to `root`; none when the cold start
 * loads its project modules from one shared chunk at most, where a second build would change nothing.
 */
function sharedColdStartModules(metafile: Metafile, entry: string): { shared: string[]; lazy: string[] } {
  const outputs = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.mjs') || file.endsWith('.js'));
  const entryOutput = outputs.find(([, output]) => output.entryPoint === entry)?.[0];
  if (entryOutput === undefined) throw new Error(`esbuild wrote no output for ${entry}`);
  const sharedChunks = [...coldStartOutputs(metafile, entryOutput)]
    .filter((file) => file !== entryOutput)
    .map((file) => Object.keys(metafile.outputs[file]!.inputs).filter(isProjectSource))
    .filter((inputs) => inputs.length > 0);
  if (sharedChunks.length < 2) return { shared: [], lazy: [] };
  const lazy = outputs
    .map(([, output]) => output.entryPoint)
    .filter((point): point is string => point !== undefined && point !== entry && isProjectSource(point));
  return { shared: sharedChunks.flat().sort(), lazy: lazy.sort() };
}

/** Adds to each of `lazy` an import of every module in `shared` (all paths relative to `root`). */
function importShared(root: string, shared: readonly string[], lazy: readonly string[]): Plugin {
  // esbuild hands onLoad the path it resolved, which is the real one where `root` goes through a symlink.
  const lazyPaths = new Set(lazy.map((file) => realpathSync(join(root, file))));
  return {
    name: 'cold-start-chunks',
    setup(bundle) {
      bundle.onResolve({ filter: new RegExp(`^${COLD_START_MODULES}$`) }, () => ({
        path: COLD_START_MODULES,
        namespace: COLD_START_MODULES,
      }));
      bundle.onLoad({ filter: /.*/, namespace: COLD_START_MODULES }, () => ({
        contents: shared.map((file) => `import ${JSON.stringify(join(root, file))};`).join('\n'),
        resolveDir: root,
        loader: 'js',
      }));
      bundle.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
        if (!lazyPaths.has(args.path)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        return { contents: `${source}\nimport '${COLD_START_MODULES}';\n`, loader: 'ts' };
      });
    },
  };
}

/**
 * Bundles `entry` (an absolute path) into `outdir` with `options`, its cold-start project modules in one chunk; returns
 * the build's metafile, paths relative to `root`.
 */
export async function bundleWithColdStartChunk(
  options: BuildOptions,
  root: string,
  entry: string,
  outdir: string,
): Promise<Metafile> {
  if (!isAbsolute(entry)) throw new Error(`The entry must be an absolute path: ${entry}`);
  const common = { ...options, absWorkingDir: root, entryPoints: [entry], outdir, metafile: true as const };
  const first = await build({ ...common, write: false });
  const { shared, lazy } = sharedColdStartModules(first.metafile, relative(root, entry).split(sep).join('/'));
  if (shared.length === 0 || lazy.length === 0) {
    // Nothing to merge: the first build is the bundle, written as it is rather than built again.
    for (const file of first.outputFiles) {
      mkdirSync(dirname(file.path), { recursive: true });
      writeFileSync(file.path, file.contents);
    }
    return first.metafile;
  }
  const second = await build({ ...common, plugins: [...(options.plugins ?? []), importShared(root, shared, lazy)] });
  // A plugin that matched no lazily loaded module would leave the chunks as they were, silently.
  if (!Object.keys(second.metafile.inputs).some((input) => input.startsWith(`${COLD_START_MODULES}:`)))
    throw new Error(`The cold-start chunk of ${entry} was not made: no lazily loaded module took its import`);
  return second.metafile;
}
