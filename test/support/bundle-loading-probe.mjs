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
const packagesLoaded = () => {
  const packages = new Set();
  for (const file of loaded) {
    for (const source of JSON.parse(readFileSync(`${file}.map`, 'utf8')).sources) {
      const match = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(source);
      if (match) packages.add(match[1]);
    }
  }
  return [...packages].sort();
};

const { handler } = await import(entry);
const steps = [{ step: 'import', packages: packagesLoaded() }];
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
    packages: packagesLoaded(),
  });
}
console.log(JSON.stringify(steps));
