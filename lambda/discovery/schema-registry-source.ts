// The refresher's SchemaSource on the EventBridge Schema Registry: DescribeSchema of the latest version of the schema
// an ARN names (arn:aws:schemas:<region>:<account>:schema/<registry>/<schema>), so a new version is followed at the
// next refresh.
import { DescribeSchemaCommand, NotFoundException, type SchemasClient } from '@aws-sdk/client-schemas';
import type { SchemaSource } from './catalog-refresher.js';
import type { RegistrySchemaType } from './registry-schema.js';

const SCHEMA_ARN = /^arn:[\w-]+:schemas:[\w-]+:\d{12}:schema\/([^/]+)\/([^/]+)$/;
const TYPES: readonly RegistrySchemaType[] = ['OpenApi3', 'JSONSchemaDraft4'];

export class SchemaRegistrySource implements SchemaSource {
  constructor(private readonly client: SchemasClient) {}

  async describe(schemaArn: string): Promise<{ content: string; type: RegistrySchemaType; version?: string } | null> {
    const [, registryName, schemaName] = SCHEMA_ARN.exec(schemaArn) ?? [];
    // Not a schema ARN at all: there is no such schema, and the machine's tool is skipped saying so.
    if (registryName === undefined || schemaName === undefined) return null;
    try {
      const schema = await this.client.send(
        new DescribeSchemaCommand({ RegistryName: registryName, SchemaName: schemaName }),
      );
      const type = schema.Type as RegistrySchemaType;
      if (schema.Content === undefined || !TYPES.includes(type)) return null;
      return { content: schema.Content, type, ...(schema.SchemaVersion ? { version: schema.SchemaVersion } : {}) };
    } catch (error) {
      if (error instanceof NotFoundException) return null;
      throw error;
    }
  }
}
