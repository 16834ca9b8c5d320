// The catalog refresher's configuration as the construct writes it into the function's environment: the task table
// (where the catalog item lives), the selection and the reserved tool names, both JSON. Read once, at the composition
// root; a malformed value fails the cold start naming the variable, rather than a refresh writing a wrong catalog.
import { discoverySelectionProblems, type DiscoverySelection } from '../contract/discovery-selection.js';
import { DISCOVERY_ENV, ENV } from '../contract/environment-names.js';
import { required } from './environment-values.js';

export interface CatalogRefreshConfig {
  readonly tableName: string;
  readonly selection: DiscoverySelection;
  /** The tools written in code: a discovered machine never takes one of their names. */
  readonly reservedNames: ReadonlySet<string>;
}

export function catalogRefreshConfigFromEnvironment(env: NodeJS.ProcessEnv): CatalogRefreshConfig {
  const selection = selectionOf(jsonIn(env, DISCOVERY_ENV.selection));
  const reserved = env[DISCOVERY_ENV.reservedToolNames];
  const names = reserved === undefined || reserved === '' ? [] : jsonIn(env, DISCOVERY_ENV.reservedToolNames);
  if (!Array.isArray(names) || names.some((name) => typeof name !== 'string'))
    throw new Error(`Environment variable ${DISCOVERY_ENV.reservedToolNames} must be a JSON array of tool names`);
  return { tableName: required(env, ENV.tableName), selection, reservedNames: new Set(names as string[]) };
}

function jsonIn(env: NodeJS.ProcessEnv, name: string): unknown {
  const raw = required(env, name);
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new Error(`Environment variable ${name} must be JSON, got '${raw}'`, { cause: error });
  }
}

/** Only the selection's own fields, each of its type, and a selection the construct would have accepted. */
function selectionOf(value: unknown): DiscoverySelection {
  const name = DISCOVERY_ENV.selection;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`Environment variable ${name} must be a JSON object`);
  const { namePrefix, names, tag, inputSchemaArnTagKey } = value as Record<string, unknown>;
  const wrong = (field: string) => new Error(`Environment variable ${name}: ${field} has the wrong type`);
  if (namePrefix !== undefined && typeof namePrefix !== 'string') throw wrong('namePrefix');
  if (names !== undefined && !(Array.isArray(names) && names.every((item) => typeof item === 'string')))
    throw wrong('names');
  if (
    tag !== undefined &&
    !(
      typeof tag === 'object' &&
      tag !== null &&
      typeof (tag as Record<string, unknown>)['key'] === 'string' &&
      typeof (tag as Record<string, unknown>)['value'] === 'string'
    )
  )
    throw wrong('tag');
  if (inputSchemaArnTagKey !== undefined && typeof inputSchemaArnTagKey !== 'string')
    throw wrong('inputSchemaArnTagKey');
  const selection: DiscoverySelection = {
    ...(namePrefix !== undefined ? { namePrefix } : {}),
    ...(names !== undefined ? { names: names as string[] } : {}),
    ...(tag !== undefined ? { tag: tag as { key: string; value: string } } : {}),
    ...(inputSchemaArnTagKey !== undefined ? { inputSchemaArnTagKey } : {}),
  };
  const problems = discoverySelectionProblems(selection);
  if (problems.length > 0) throw new Error(`Environment variable ${name} is invalid:\n- ${problems.join('\n- ')}`);
  return selection;
}
