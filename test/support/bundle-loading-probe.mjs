// Run by test/integration/lambda-bundle-loading.test.ts in a fresh Node process: loads a prebuilt handler bundle,
// sends it the API Gateway events given as JSON in argv[3], and prints what it answered and which packages the files
// it loaded were built from (read from their source maps), so the test can tell which chunks a request loaded.
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const loaded = new Set();
registerHooks({
  load(url, context, nextLoad) {
    if (url.startsWith('file:')) loaded.add(fileURLToPath(url));
    return nextLoad(url, context);
  },
});

const [entry, events] = [process.argv[2], JSON.parse(process.argv[3])];
/**
 * What the files loaded so far were built from (read from their source maps): packages, sources, and how many files
 * hold the project's own modules.
 */
const whatLoaded = () => {
  const packages = new Set();
  const sources = new Set();
  let projectFiles = 0;
  for (const file of loaded) {
    const built = JSON.parse(readFileSync(`${file}.map`, 'utf8')).sources.map((source) =>
      source.replace(/^(\.\.\/)+/, ''),
    );
    for (const source of built) {
      sources.add(source);
      const match = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(source);
      if (match) packages.add(match[1]);
    }
    if (built.some((source) => source.startsWith('lambda/'))) projectFiles++;
  }
  return { packages: [...packages].sort(), sources: [...sources].sort(), projectFiles };
};

const { handler } = await import(entry);
const steps = [{ step: 'import', ...whatLoaded() }];
for (const event of events) {
  let written = '';
  const stream = Object.assign(
    new Writable({ write: (chunk, _encoding, done) => ((written += chunk.toString()), done()) }),
    { setContentType: () => {} },
  );
  await handler(event, stream);
  steps.push({
    step: JSON.parse(event.body).method,
    answer: written.slice(written.indexOf('\0'.repeat(8)) + 8),
    ...whatLoaded(),
  });
}
console.log(JSON.stringify(steps));
