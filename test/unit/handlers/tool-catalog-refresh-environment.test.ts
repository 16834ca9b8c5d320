// The catalog refresher's configuration as it reads it from the environment the construct writes: the selection and
// reserved names parsed from JSON, a selection the construct would refuse refused here too, and every malformed
// value named by its variable.
import { describe, expect, it } from 'vitest';
import { catalogRefreshConfigFromEnvironment } from '../../../lambda/handlers/tool-catalog-refresh-environment.js';

const ENVIRONMENT: NodeJS.ProcessEnv = {
  TASK_TABLE_NAME: 'tasks',
  DISCOVERY_SELECTION: JSON.stringify({
    namePrefix: 'orders-',
    names: ['billing'],
    tag: { key: 'mcp:tool', value: 'true' },
    inputSchemaArnTagKey: 'schema-arn',
  }),
  DISCOVERY_RESERVED_TOOL_NAMES: JSON.stringify(['summarize', 'translate']),
};

const with_ = (changes: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...ENVIRONMENT, ...changes });

describe('catalogRefreshConfigFromEnvironment', () => {
  it('reads the table, the whole selection and the reserved names', () => {
    expect(catalogRefreshConfigFromEnvironment(ENVIRONMENT)).toEqual({
      tableName: 'tasks',
      selection: {
        namePrefix: 'orders-',
        names: ['billing'],
        tag: { key: 'mcp:tool', value: 'true' },
        inputSchemaArnTagKey: 'schema-arn',
      },
      reservedNames: new Set(['summarize', 'translate']),
    });
  });

  it('reserves no name when the endpoint has no tools written in code', () => {
    const { DISCOVERY_RESERVED_TOOL_NAMES: _dropped, ...rest } = ENVIRONMENT;
    expect(catalogRefreshConfigFromEnvironment(rest).reservedNames).toEqual(new Set());
  });

  it('keeps only the selection’s own fields', () => {
    const env = with_({ DISCOVERY_SELECTION: JSON.stringify({ tag: { key: 'k', value: 'v' }, extra: 1 }) });
    expect(catalogRefreshConfigFromEnvironment(env).selection).toEqual({ tag: { key: 'k', value: 'v' } });
  });

  it('requires the table name and the selection', () => {
    expect(() => catalogRefreshConfigFromEnvironment(with_({ TASK_TABLE_NAME: '' }))).toThrow(/TASK_TABLE_NAME/);
    expect(() => catalogRefreshConfigFromEnvironment(with_({ DISCOVERY_SELECTION: '' }))).toThrow(
      /DISCOVERY_SELECTION is required/,
    );
  });

  it('refuses a selection that is not JSON, or not an object', () => {
    for (const raw of ['{namePrefix', '"orders-"', '[]', 'null'])
      expect(() => catalogRefreshConfigFromEnvironment(with_({ DISCOVERY_SELECTION: raw }))).toThrow(
        /DISCOVERY_SELECTION must be (JSON|a JSON object)/,
      );
  });

  it('refuses a selection field of the wrong type, naming it', () => {
    for (const [field, value] of [
      ['namePrefix', 3],
      ['names', 'billing'],
      ['tag', { key: 'k' }],
      ['inputSchemaArnTagKey', true],
    ] as const)
      expect(() =>
        catalogRefreshConfigFromEnvironment(with_({ DISCOVERY_SELECTION: JSON.stringify({ [field]: value }) })),
      ).toThrow(new RegExp(`${field} has the wrong type`));
  });

  it('refuses a selection the construct would refuse, such as one that selects every machine', () => {
    expect(() => catalogRefreshConfigFromEnvironment(with_({ DISCOVERY_SELECTION: '{}' }))).toThrow(
      /never selects every machine/,
    );
  });

  it('refuses reserved names that are not a JSON array of strings', () => {
    for (const raw of ['summarize', '{"a":1}', '[1]'])
      expect(() => catalogRefreshConfigFromEnvironment(with_({ DISCOVERY_RESERVED_TOOL_NAMES: raw }))).toThrow(
        /DISCOVERY_RESERVED_TOOL_NAMES must be/,
      );
  });
});
