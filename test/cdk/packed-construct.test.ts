// The construct as users meet it: `npm pack`ed, installed from the tarball into a fresh CDK app in a temporary
// folder (consumer-app/app.mjs), synthesized there with cdk-nag, and the template checked; beside it a team's own
// durable function (consumer-app/durable-function.ts) on the `mcp-tasks-sfn/durable` subpath, type-checked there.
// aws-cdk-lib, constructs, cdk-nag and the durable execution SDK come from this repository's node_modules (installed
// as links, offline): from the registry they would take minutes, and they are not what is under test.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lambda/contract/environment-names.js';
import { PACKAGE_ROOT } from '../../lib/handlers/handler-asset.js';
import { buildDurable } from '../../scripts/build-durable.js';
import { declaredCatalogResource, declaredCatalogTools, isCustomResourceProvider } from './cdk-app.js';

const run = promisify(execFile);
const NPM_FLAGS = ['--offline', '--no-audit', '--no-fund', '--loglevel=error'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- template properties, read as the assertions need them
type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };

let work: string;
let app: string;
let manifest: {
  name: string;
  version: string;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  files?: string[];
};
let packedFiles: string[];
let resources: Record<string, Resource>;
let refused: { code?: number; stderr: string };
let typeCheck: { code?: number; stdout: string };
let durableTypeCheck: { code?: number; stdout: string };
let unconfigured: { code?: number; stdout: string; stderr: string };

/** The packages a module and everything it imports at run time (relative imports followed) import by name. */
function packagesImportedFrom(entry: string, seen = new Set<string>(), packages = new Set<string>()): Set<string> {
  if (seen.has(entry)) return packages;
  seen.add(entry);
  for (const [, specifier] of readFileSync(entry, 'utf8').matchAll(
    /^(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm,
  )) {
    if (specifier!.startsWith('.')) packagesImportedFrom(join(entry, '..', specifier!), seen, packages);
    else
      packages.add(
        specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!,
      );
  }
  return packages;
}

function ofType(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'packed-construct-'));
  // The Lambda assets are already built by the test run's global setup; `prepack` would build them again under
  // the feet of the other test files, so only the compiled construct and the durable subpath are built here and
  // pack skips its scripts.
  await Promise.all([
    run(
      process.execPath,
      [join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(PACKAGE_ROOT, 'tsconfig.build.json')],
      { cwd: PACKAGE_ROOT },
    ),
    buildDurable(),
  ]);
  const { stdout } = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', work, ...NPM_FLAGS],
    { cwd: PACKAGE_ROOT },
  );
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  packedFiles = packed!.files.map((file) => file.path);

  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  for (const file of ['app.mjs', 'durable-function.ts', 'durable-unconfigured.mjs'])
    copyFileSync(new URL(`consumer-app/${file}`, import.meta.url), join(app, file));
  const local = (name: string) => join(PACKAGE_ROOT, 'node_modules', name);
  await run(
    'npm',
    [
      'install',
      '--ignore-scripts',
      ...NPM_FLAGS,
      join(work, packed!.filename),
      local('aws-cdk-lib'),
      local('constructs'),
      local('cdk-nag'),
    ],
    { cwd: app },
  );
  // The durable function's SDK, an optional peer, linked by hand: `npm install` of a folder would install the SDK's
  // own dependencies into this repository's node_modules. Through the link, Node and tsc find them there anyway.
  mkdirSync(join(app, 'node_modules/@aws'));
  symlinkSync(local('@aws/durable-execution-sdk-js'), join(app, 'node_modules/@aws/durable-execution-sdk-js'), 'dir');
  manifest = JSON.parse(readFileSync(join(app, 'node_modules/mcp-tasks-sfn/package.json'), 'utf8'));

  const tsc = join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc');
  // The app checked as TypeScript sees it (checkJs) against the package's declarations, strict, Node ESM resolution.
  const strict = [
    '--noEmit',
    '--strict',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
  ];
  const checkJs = [...strict, '--allowJs', '--checkJs'];
  const nodeTypes = ['--typeRoots', join(PACKAGE_ROOT, 'node_modules/@types'), '--types', 'node'];
  const failure = (error: { code?: number; stdout: string; stderr: string }) => error;
  // The two synths, the type checks and the unconfigured durable helpers are independent: run them side by side.
  const [, unlogged, checked, durableChecked, helpersUnconfigured] = await Promise.all([
    run(process.execPath, ['app.mjs', 'cdk.out'], { cwd: app }),
    run(process.execPath, ['app.mjs', 'cdk.out.refused', '--unlogged-machine'], { cwd: app }).then(
      () => ({ stderr: '' }),
      (error: { code?: number; stderr: string }) => error,
    ),
    run(process.execPath, [tsc, ...checkJs, '--skipLibCheck', ...nodeTypes, 'app.mjs'], { cwd: app }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      failure,
    ),
    // Every declaration checked, the package's and the SDK's: a team's tsconfig may well have skipLibCheck off.
    run(process.execPath, [tsc, ...strict, '--skipLibCheck', 'false', ...nodeTypes, 'durable-function.ts'], {
      cwd: app,
    }).then(({ stdout }) => ({ code: 0, stdout }), failure),
    run(process.execPath, ['durable-unconfigured.mjs'], {
      cwd: app,
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== ENV.tableName)),
    }).then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), failure),
  ]);
  refused = unlogged;
  typeCheck = checked;
  durableTypeCheck = durableChecked;
  unconfigured = helpersUnconfigured;
  resources = JSON.parse(readFileSync(join(app, 'cdk.out/Consumer.template.json'), 'utf8')).Resources;
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('is a versioned, public 0.x package whose entry point is the compiled construct with its types', () => {
    expect(manifest.name).toBe('mcp-tasks-sfn');
    expect(manifest.version).toMatch(/^0\.\d+\.\d+$/);
    expect(manifest).not.toHaveProperty('private');
    expect(manifest).toMatchObject({
      main: './dist/lib/index.js',
      types: './dist/lib/index.d.ts',
      exports: { '.': { types: './dist/lib/index.d.ts', default: './dist/lib/index.js' } },
    });
    expect(packedFiles).toEqual(
      expect.arrayContaining(['dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/lib/mcp-task-endpoint.d.ts']),
    );
  });

  it('asks the app only for aws-cdk-lib and constructs: the handlers bring their dependencies in their bundles', () => {
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual([
      '@aws/durable-execution-sdk-js',
      'aws-cdk-lib',
      'constructs',
    ]);
    // The durable execution SDK only for a durable function's types (see the durable subpath below).
    expect(manifest.peerDependenciesMeta).toEqual({ '@aws/durable-execution-sdk-js': { optional: true } });
    const imported = [...packagesImportedFrom(join(app, 'node_modules/mcp-tasks-sfn/dist/lib/index.js'))].sort();
    expect(imported.filter((name) => !name.startsWith('node:'))).toEqual(['aws-cdk-lib', 'constructs']);
  });

  it('ships each handler as a prebuilt bundle, and no TypeScript sources, tests or example tools', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'dist/assets/lambda/handlers/mcp-http/index.mjs',
        'dist/assets/lambda/handlers/status-sync/index.mjs',
        'dist/assets/lambda/handlers/oauth-http/index.mjs',
      ]),
    );
    expect(packedFiles.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
    expect(
      packedFiles.filter((file) => /(^|\/)(test|example-tools|conformance-tools|local|bench)\//.test(file)),
    ).toEqual([]);
  });
});

/**
 * The handlers the construct deploys: the MCP endpoint, status sync, expiry sweep, the progress and ask steps, the
 * OAuth proxy, and the task event stream and webhook delivery.
 */
const CONSTRUCT_HANDLERS = [
  'mcp-http',
  'status-sync',
  'expiry-sweep',
  'execution-reconciler',
  'report-progress',
  'ask-step',
  'oauth-http',
  'task-event-stream',
  'webhook-delivery',
];

describe('a fresh CDK app that installs the tarball', () => {
  it('type-checks against the package’s declarations, imported by the package name', () => {
    expect({ code: typeCheck.code, stdout: typeCheck.stdout }).toEqual({ code: 0, stdout: '' });
  });

  it('synthesizes with cdk-nag AwsSolutionsChecks and no finding left', () => {
    // The synth itself failed the beforeAll otherwise; this one checks that the rules really ran in that app.
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/AwsSolutions-SF1|AwsSolutions-SF2/);
    expect(refused.stderr).toContain('Consumer/UnloggedMachine');
  });

  it('deploys its handlers from the package’s prebuilt bundles, on Node 22 arm64', () => {
    // Beside CDK's own AwsCustomResource provider, which reads the OAuth proxy's Cognito client secret at deployment.
    const functions = ofType('AWS::Lambda::Function')
      .filter(([id]) => !isCustomResourceProvider(id))
      .map(([, fn]) => fn.Properties);
    expect(functions).toHaveLength(CONSTRUCT_HANDLERS.length);
    const installed = (name: string) =>
      readFileSync(join(app, 'node_modules/mcp-tasks-sfn/dist/assets/lambda/handlers', name, 'index.mjs'));
    const staged = functions.map((fn) =>
      readFileSync(join(app, 'cdk.out', `asset.${(fn['Code'].S3Key as string).replace(/\.zip$/, '')}`, 'index.mjs')),
    );
    for (const fn of functions)
      expect(fn).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: 'index.handler' });
    expect(staged.map((bundle) => bundle.toString('base64')).sort()).toEqual(
      CONSTRUCT_HANDLERS.map(installed)
        .map((bundle) => bundle.toString('base64'))
        .sort(),
    );
  });

  it('creates the task table, the events table, the OAuth proxy’s table and the REST API with its stage behind the API Gateway account role', () => {
    expect(ofType('AWS::DynamoDB::Table')).toHaveLength(3);
    expect(ofType('AWS::ApiGateway::RestApi')).toHaveLength(1);
    const [[accountId]] = ofType('AWS::ApiGateway::Account') as [[string, Resource]];
    const [[, stage]] = ofType('AWS::ApiGateway::Stage') as [[string, Resource]];
    expect(stage.DependsOn).toContain(accountId);
  });

  it('registers the app’s own state machine as the tool: its ARN in the declared catalog, start rights on it', () => {
    const [[machineId]] = ofType('AWS::StepFunctions::StateMachine') as [[string, Resource]];
    const mcp = ofType('AWS::Lambda::Function').find(
      ([, fn]) => fn.Properties['Environment'].Variables[ENV.toolCatalogItem] !== undefined,
    )!;
    const catalog = declaredCatalogResource(resources);
    expect(declaredCatalogTools(catalog.create).map((tool) => tool.stateMachineArn)).toEqual([`\${${machineId}}`]);
    expect(mcp[1].DependsOn).toContain(catalog.id);
    const roleId = mcp[1].Properties['Role']['Fn::GetAtt'][0] as string;
    const statements = ofType('AWS::IAM::Policy')
      .filter(([, policy]) => (policy.Properties['Roles'] as { Ref: string }[]).some((role) => role.Ref === roleId))
      .flatMap(
        ([, policy]) =>
          policy.Properties['PolicyDocument'].Statement as { Action: string | string[]; Resource: unknown }[],
      );
    expect(statements).toContainEqual(
      expect.objectContaining({ Action: 'states:StartExecution', Resource: { Ref: machineId } }),
    );
  });

  it('needs nothing installed besides the package, its peers and cdk-nag: no esbuild, no Docker', () => {
    // `.bin` holds npm's link to the package's own `mcp-tasks` command when the CLI was built before packing: not a
    // package.
    const installed = readdirSync(join(app, 'node_modules')).filter((entry) => entry !== '.bin');
    expect(installed.sort()).toEqual([
      '.package-lock.json',
      '@aws',
      'aws-cdk-lib',
      'cdk-nag',
      'constructs',
      'mcp-tasks-sfn',
    ]);
    // The one package in @aws/ is the durable function's SDK, linked in for its type check: none came with ours.
    expect(readdirSync(join(app, 'node_modules/@aws'))).toEqual(['durable-execution-sdk-js']);
  });
});

describe('the durable subpath, mcp-tasks-sfn/durable', () => {
  const installed = (path: string) => join(app, 'node_modules/mcp-tasks-sfn', path);

  it('is exported with its types and packed as one bundle with its declarations', () => {
    expect(manifest).toMatchObject({
      exports: { './durable': { types: './dist/durable/index.d.ts', default: './dist/durable/index.mjs' } },
    });
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'dist/durable/index.mjs',
        'dist/durable/index.d.ts',
        'dist/durable/lambda/handlers/durable-workflow-helpers.d.ts',
      ]),
    );
    // Declarations only: the helpers' sources and their other modules stay in the bundle.
    expect(packedFiles.filter((file) => file.startsWith('dist/durable/lambda/') && !file.endsWith('.d.ts'))).toEqual(
      [],
    );
  });

  it('imports no package at run time: the AWS SDK is in its bundle, the durable execution SDK only in its types', () => {
    const bundle = readFileSync(installed('dist/durable/index.mjs'), 'utf8');
    const specifiers = [...bundle.matchAll(/\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)].map(
      ([, from, imported]) => (from ?? imported)!,
    );
    expect(specifiers.filter((specifier) => !specifier.startsWith('node:'))).toEqual([]);
  });

  it('names no AWS SDK type in its declarations: only its optional peer, the durable execution SDK', () => {
    const declarations = packedFiles.filter((file) => file.startsWith('dist/durable/') && file.endsWith('.d.ts'));
    const imported = declarations.flatMap((file) =>
      [...readFileSync(installed(file), 'utf8').matchAll(/^(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm)]
        .map(([, specifier]) => specifier!)
        .filter((specifier) => !specifier.startsWith('.')),
    );
    expect([...new Set(imported)]).toEqual(['@aws/durable-execution-sdk-js']);
  });

  it('type-checks a team’s durable function against its declarations, strict, with skipLibCheck off', () => {
    expect({ code: durableTypeCheck.code, stdout: durableTypeCheck.stdout }).toEqual({ code: 0, stdout: '' });
  });

  it('imports in Node by the package name, and its ask and report reject naming TASK_TABLE_NAME when it is unset', () => {
    expect(unconfigured.code).toBe(0);
    const missing = `Error: Environment variable ${ENV.tableName} is required`;
    expect(JSON.parse(unconfigured.stdout)).toEqual([
      { rejected: expect.stringContaining(missing) },
      { rejected: expect.stringContaining(missing) },
    ]);
  });
});
