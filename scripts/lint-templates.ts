// Lints every template of a cloud assembly (cdk.out) with cfn-lint, as CloudFormation would read it. `npm run synth`
// runs it after `cdk synth`; `tsx scripts/lint-templates.ts [cdk.out]` runs it on an assembly already there.
//
// cfn-lint checks a state machine's definition (ASL: state types, fields, transitions) only when the template holds
// it, and CDK leaves it out of the template twice over: a machine built from a definition file names its asset
// (`DefinitionS3Location`), and the generated EXPRESS wrapper is a `DefinitionString` joined around the ARN of the
// machine it runs (`Fn::Join`), which cfn-lint does not read. So each template is first copied with every machine's
// definition put in as `Definition`: the asset file's JSON, or the joined string rendered with a placeholder for each
// reference (a made-up ARN of the right service, or the logical ID); cdk.out's own files are never changed. Then one
// cfn-lint run checks the copies, informational rules included, and any finding not on IGNORED fails the step.
// Where cfn-lint is not installed, the step says so in one line and passes (CI's machine has it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A cfn-lint rule whose every finding is accepted, and why. */
export interface IgnoredRule {
  readonly rule: string;
  readonly reason: string;
}

/** What cfn-lint may report on these templates without failing the step. Add an entry only with its reason. */
export const IGNORED: readonly IgnoredRule[] = [
  {
    rule: 'W3005',
    reason:
      'A DependsOn that repeats what a Ref or GetAtt already orders: CDK writes it (a function or state machine on ' +
      'its role, beside the role policy no reference orders; a Cognito app client on its resource server). ' +
      'CloudFormation accepts it, and it changes no order.',
  },
];

/** One cfn-lint finding, or a machine whose definition could not be put into the copy. */
export interface Finding {
  /** The stack's display name (a nested stack's is its parent's, a slash, and its logical ID). */
  readonly template: string;
  /** cfn-lint's rule ID (E, W or I), or `inline` for a definition the step could not read. */
  readonly rule: string;
  readonly message: string;
  /** Where in the template: `Resources/<id>/Properties/...`. */
  readonly path: string;
}

/** What a lint of an assembly found. */
export interface LintResult {
  readonly templates: readonly string[];
  /** State machines whose definition was put into the copy. */
  readonly machines: number;
  /** Findings not on the ignore list: the step fails on any. */
  readonly findings: readonly Finding[];
  /** Findings ignored, by rule. */
  readonly ignored: Readonly<Record<string, number>>;
}

type Json = Record<string, unknown>;
export interface CfnResource {
  Type: string;
  Properties?: Json;
  Metadata?: Json;
}
export interface CfnTemplate {
  Resources?: Record<string, CfnResource>;
}

export interface AssemblyTemplate {
  readonly name: string;
  readonly template: CfnTemplate;
  /** The file of an asset by its S3 object key, for the definitions stored as assets. */
  readonly assetFile: (objectKey: string) => string | undefined;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** Every stack template of the assembly in `dir`, nested assemblies (stages) and nested stacks included. */
export function assemblyTemplates(dir: string): AssemblyTemplate[] {
  const manifest = readJson<{ artifacts?: Record<string, { type: string; displayName?: string; properties?: Json }> }>(
    join(dir, 'manifest.json'),
  );
  const artifacts = Object.entries(manifest.artifacts ?? {});
  const assets = new Map<string, string>();
  for (const [, artifact] of artifacts) {
    if (artifact.type !== 'cdk:asset-manifest') continue;
    const { files = {} } = readJson<{
      files?: Record<string, { source: { path?: string }; destinations: Record<string, { objectKey: string }> }>;
    }>(join(dir, artifact.properties!['file'] as string));
    for (const { source, destinations } of Object.values(files))
      if (source.path !== undefined)
        for (const { objectKey } of Object.values(destinations)) assets.set(objectKey, join(dir, source.path));
  }
  const assetFile = (objectKey: string) => assets.get(objectKey);
  const templates: AssemblyTemplate[] = [];
  const addWithNested = (name: string, file: string) => {
    const template = readJson<CfnTemplate>(file);
    templates.push({ name, template, assetFile });
    for (const [id, resource] of Object.entries(template.Resources ?? {})) {
      const nested = resource.Metadata?.['aws:asset:path'];
      if (resource.Type === 'AWS::CloudFormation::Stack' && typeof nested === 'string')
        addWithNested(`${name}/${id}`, join(dir, nested));
    }
  };
  for (const [id, artifact] of artifacts) {
    if (artifact.type === 'aws:cloudformation:stack')
      addWithNested(artifact.displayName ?? id, join(dir, artifact.properties!['templateFile'] as string));
    else if (artifact.type === 'cdk:cloud-assembly')
      templates.push(...assemblyTemplates(join(dir, artifact.properties!['directoryName'] as string)));
  }
  return templates;
}

/** Stand-ins for the pseudo parameters a rendered definition may name. */
const PSEUDO_PARAMETERS: Record<string, string> = {
  'AWS::AccountId': '123456789012',
  'AWS::Region': 'us-east-1',
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'Stack',
  'AWS::StackId': 'arn:aws:cloudformation:us-east-1:123456789012:stack/Stack/00000000-0000-0000-0000-000000000000',
};

/** A made-up ARN for resource `id` of CloudFormation type `type` (`AWS::StepFunctions::StateMachine`, say). */
function placeholderArn(type: string | undefined, id: string): string {
  if (type === 'AWS::StepFunctions::StateMachine') return `arn:aws:states:us-east-1:123456789012:stateMachine:${id}`;
  if (type === 'AWS::Lambda::Function') return `arn:aws:lambda:us-east-1:123456789012:function:${id}`;
  const service = type?.split('::')[1]?.toLowerCase() ?? 'unknown';
  return `arn:aws:${service}:us-east-1:123456789012:${id}`;
}

/** Types whose `Ref` is their ARN; any other resource's `Ref` is rendered as its logical ID (a name). */
const REF_IS_ARN = new Set(['AWS::StepFunctions::StateMachine', 'AWS::StepFunctions::Activity', 'AWS::SNS::Topic']);

/** A definition string, intrinsic functions rendered with placeholders; throws on one it cannot render. */
export function renderDefinitionString(value: unknown, resources: Record<string, CfnResource> = {}): string {
  if (typeof value === 'string') return value;
  const node = (value ?? {}) as Json;
  if (Array.isArray(node['Fn::Join'])) {
    const [delimiter, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => renderDefinitionString(part, resources)).join(delimiter);
  }
  if (typeof node['Ref'] === 'string') {
    const id = node['Ref'];
    const type = resources[id]?.Type;
    return PSEUDO_PARAMETERS[id] ?? (type !== undefined && REF_IS_ARN.has(type) ? placeholderArn(type, id) : id);
  }
  if (Array.isArray(node['Fn::GetAtt'])) {
    const [id, attribute] = node['Fn::GetAtt'] as [string, string];
    return attribute.endsWith('Arn') ? placeholderArn(resources[id]?.Type, id) : `${id}.${attribute}`;
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

/**
 * A copy of `template` with each state machine's definition in `Definition`, read from its asset or rendered from its
 * joined string, and what could not be put in (a definition in S3 that is no asset of the assembly is reported, not
 * guessed). The template itself is not changed.
 */
export function inlineDefinitions({ name, template, assetFile }: AssemblyTemplate): {
  template: CfnTemplate;
  machines: number;
  problems: Finding[];
} {
  const copy = structuredClone(template);
  const resources = copy.Resources ?? {};
  const problems: Finding[] = [];
  let machines = 0;
  for (const [id, resource] of Object.entries(resources)) {
    const properties = resource.Properties;
    if (resource.Type !== 'AWS::StepFunctions::StateMachine' || properties === undefined) continue;
    const problem = (message: string, property: string) =>
      problems.push({ template: name, rule: 'inline', message, path: `Resources/${id}/Properties/${property}` });
    const location = properties['DefinitionS3Location'] as { Key?: unknown } | undefined;
    if (location !== undefined) {
      const file = typeof location.Key === 'string' ? assetFile(location.Key) : undefined;
      if (file === undefined || !existsSync(file)) {
        problem(
          `no asset file for ${JSON.stringify(location.Key)}: the definition cannot be checked`,
          'DefinitionS3Location',
        );
        continue;
      }
      delete properties['DefinitionS3Location'];
      properties['Definition'] = readJson<unknown>(file);
      machines += 1;
    } else if (properties['DefinitionString'] !== undefined) {
      let rendered: unknown;
      try {
        rendered = JSON.parse(renderDefinitionString(properties['DefinitionString'], resources));
      } catch (error) {
        problem(`the definition cannot be rendered as JSON: ${(error as Error).message}`, 'DefinitionString');
        continue;
      }
      delete properties['DefinitionString'];
      properties['Definition'] = rendered;
      machines += 1;
    } else if (properties['Definition'] !== undefined) machines += 1;
  }
  return { template: copy, machines, problems };
}

/** cfn-lint's version line, or undefined where it cannot be run (the tests skip on it). */
export function cfnLintVersion(command = 'cfn-lint'): string | undefined {
  const run = spawnSync(command, ['--version'], { encoding: 'utf8' });
  return run.error === undefined && run.status === 0 ? run.stdout.trim() : undefined;
}

interface CfnLintMatch {
  Filename: string;
  Level: string;
  Message: string;
  Rule: { Id: string };
  Location: { Path?: (string | number)[] | null };
}

/** Thrown where cfn-lint cannot be found (not on PATH, or a pyenv shim with no version that has it). */
export class CfnLintMissing extends Error {}

/** Runs cfn-lint once over `files` (informational rules included); its matches by file. */
function runCfnLint(command: string, files: readonly string[]): CfnLintMatch[] {
  const run = spawnSync(command, ['--format', 'json', '--include-checks', 'I', '--', ...files], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' || run.status === 127)
    throw new CfnLintMissing(`${command} not found`);
  // Exit status: a bit each for errors (2), warnings (4) and informational findings (8); 1 when it failed to run.
  if (run.error !== undefined || run.status === null || (run.status & 1) === 1)
    throw new Error(`cfn-lint failed to run (${run.error?.message ?? `status ${run.status}`}): ${run.stderr}`);
  return JSON.parse(run.stdout || '[]') as CfnLintMatch[];
}

/** Lints every template of the assembly in `dir`, each state machine's definition inlined. */
export function lintAssembly(dir: string, command = 'cfn-lint'): LintResult {
  const templates = assemblyTemplates(dir);
  const scratch = mkdtempSync(join(tmpdir(), 'lint-templates-'));
  try {
    const byFile = new Map<string, string>();
    const findings: Finding[] = [];
    let machines = 0;
    templates.forEach((each, index) => {
      const inlined = inlineDefinitions(each);
      machines += inlined.machines;
      findings.push(...inlined.problems);
      const file = join(scratch, `${index}.template.json`);
      writeFileSync(file, JSON.stringify(inlined.template, null, 1));
      byFile.set(file, each.name);
    });
    const ignored: Record<string, number> = {};
    const ignoredRules = new Set(IGNORED.map(({ rule }) => rule));
    for (const match of runCfnLint(command, [...byFile.keys()])) {
      if (ignoredRules.has(match.Rule.Id)) {
        ignored[match.Rule.Id] = (ignored[match.Rule.Id] ?? 0) + 1;
        continue;
      }
      findings.push({
        template: byFile.get(resolve(match.Filename)) ?? byFile.get(match.Filename) ?? match.Filename,
        rule: match.Rule.Id,
        message: match.Message,
        path: (match.Location.Path ?? []).join('/'),
      });
    }
    return { templates: templates.map(({ name }) => name), machines, findings, ignored };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The step: lints `dir`, prints what it found, and returns the exit code (1 on any finding not ignored). */
export function main(dir = 'cdk.out', command = process.env['CFN_LINT'] ?? 'cfn-lint'): number {
  const started = performance.now();
  let result: LintResult;
  try {
    result = lintAssembly(dir, command);
  } catch (error) {
    if (!(error instanceof CfnLintMissing)) throw error;
    console.log('cfn-lint is not installed: templates not linted (install it with `pip install cfn-lint`)');
    return 0;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  for (const { template, rule, message, path } of result.findings)
    console.error(`${template}: ${rule} ${message}\n  at ${path}`);
  const ignored = Object.entries(result.ignored).map(([rule, count]) => `${rule} ×${count}`);
  console.log(
    `cfn-lint: ${result.templates.length} template(s), ${result.machines} state machine definition(s) inlined, ` +
      `${result.findings.length} finding(s)${ignored.length > 0 ? `, ignored ${ignored.join(', ')}` : ''} ` +
      `(${seconds} s)`,
  );
  return result.findings.length > 0 ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv[2]);
