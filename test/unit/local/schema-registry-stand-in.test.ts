// The Schema Registry stand-in answers the real @aws-sdk/client-schemas as EventBridge does: registries are created
// before schemas go in them, a second CreateRegistry of a name is a conflict, a schema in a registry that does not
// exist is refused; with a state file, what was created is there again after a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConflictException,
  CreateRegistryCommand,
  CreateSchemaCommand,
  DescribeRegistryCommand,
  DescribeSchemaCommand,
  ListRegistriesCommand,
  NotFoundException,
  SchemasClient,
  UpdateSchemaCommand,
} from '@aws-sdk/client-schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../local/local-aws.js';
import { startSchemaRegistryStandIn, type SchemaRegistryStandIn } from '../../../local/schema-registry-stand-in.js';

const CONTENT = JSON.stringify({ type: 'object', properties: { orderId: { type: 'string' } } });
const cleanups: Array<() => unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(stateFile?: string): Promise<{ standIn: SchemaRegistryStandIn; schemas: SchemasClient }> {
  const standIn = await startSchemaRegistryStandIn(stateFile === undefined ? {} : { stateFile });
  const schemas = new SchemasClient({
    endpoint: standIn.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  cleanups.push(
    () => standIn.stop(),
    () => schemas.destroy(),
  );
  return { standIn, schemas };
}

const createSchema = (registry: string, name = 'RefundInput') =>
  new CreateSchemaCommand({ RegistryName: registry, SchemaName: name, Type: 'JSONSchemaDraft4', Content: CONTENT });

describe('the Schema Registry stand-in', () => {
  it('creates a registry and describes and lists it', async () => {
    const { schemas } = await started();
    const created = await schemas.send(
      new CreateRegistryCommand({ RegistryName: 'orders', Description: 'Order workflows', Tags: { team: 'pay' } }),
    );
    expect(created).toMatchObject({
      RegistryName: 'orders',
      RegistryArn: 'arn:aws:schemas:us-east-1:000000000000:registry/orders',
      Description: 'Order workflows',
      Tags: { team: 'pay' },
    });
    expect(await schemas.send(new DescribeRegistryCommand({ RegistryName: 'orders' }))).toMatchObject({
      RegistryName: 'orders',
      Description: 'Order workflows',
    });
    const { Registries } = await schemas.send(new ListRegistriesCommand({}));
    expect(Registries?.map((each) => each.RegistryName).sort()).toEqual(['aws.events', 'discovered-schemas', 'orders']);
    expect(Registries?.find((each) => each.RegistryName === 'orders')?.Tags).toEqual({ team: 'pay' });
  });

  it('refuses a registry that exists, AWS-built-in ones included, with ConflictException', async () => {
    const { schemas } = await started();
    await schemas.send(new CreateRegistryCommand({ RegistryName: 'orders' }));
    for (const name of ['orders', 'aws.events', 'discovered-schemas'])
      await expect(schemas.send(new CreateRegistryCommand({ RegistryName: name }))).rejects.toMatchObject({
        name: 'ConflictException',
        $metadata: { httpStatusCode: 409 },
      });
    await expect(schemas.send(new CreateRegistryCommand({ RegistryName: 'orders' }))).rejects.toBeInstanceOf(
      ConflictException,
    );
  });

  it('refuses a schema in a registry that does not exist with NotFoundException, and describes nothing there', async () => {
    const { schemas } = await started();
    const refused = await schemas.send(createSchema('nowhere')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NotFoundException);
    expect(refused).toMatchObject({
      $metadata: { httpStatusCode: 404 },
      Code: 'NotFoundException',
      message: expect.stringContaining('nowhere'),
    });
    await expect(schemas.send(new DescribeRegistryCommand({ RegistryName: 'nowhere' }))).rejects.toBeInstanceOf(
      NotFoundException,
    );
  });

  it('takes a schema in a registry once it is created, and in a built-in one', async () => {
    const { standIn, schemas } = await started();
    await schemas.send(new CreateRegistryCommand({ RegistryName: 'orders' }));
    expect(await schemas.send(createSchema('orders'))).toMatchObject({
      SchemaArn: standIn.schemaArn('orders', 'RefundInput'),
      SchemaVersion: '1',
    });
    expect(await schemas.send(createSchema('discovered-schemas'))).toMatchObject({ SchemaVersion: '1' });
    expect(
      await schemas.send(new DescribeSchemaCommand({ RegistryName: 'orders', SchemaName: 'RefundInput' })),
    ).toMatchObject({ Content: CONTENT, Type: 'JSONSchemaDraft4' });
  });

  it('keeps registries and schema versions in its state file across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'schema-registry-state-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const stateFile = join(dir, 'schema-registry.json');
    const first = await started(stateFile);
    await first.schemas.send(new CreateRegistryCommand({ RegistryName: 'orders', Description: 'Order workflows' }));
    await first.schemas.send(createSchema('orders'));
    await first.schemas.send(
      new UpdateSchemaCommand({ RegistryName: 'orders', SchemaName: 'RefundInput', Content: '{"type":"object"}' }),
    );
    await first.standIn.stop();

    const second = await started(stateFile);
    expect(await second.schemas.send(new DescribeRegistryCommand({ RegistryName: 'orders' }))).toMatchObject({
      Description: 'Order workflows',
    });
    const schema = { RegistryName: 'orders', SchemaName: 'RefundInput' };
    expect(await second.schemas.send(new DescribeSchemaCommand(schema))).toMatchObject({
      SchemaVersion: '2',
      Content: '{"type":"object"}',
    });
    expect(await second.schemas.send(new DescribeSchemaCommand({ ...schema, SchemaVersion: '1' }))).toMatchObject({
      Content: CONTENT,
    });
    await expect(second.schemas.send(new CreateRegistryCommand({ RegistryName: 'orders' }))).rejects.toBeInstanceOf(
      ConflictException,
    );
  });
});
