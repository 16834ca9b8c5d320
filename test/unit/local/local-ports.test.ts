// npm start's ports: each fixed by its variable (PORT, STEP_FUNCTIONS_PORT, SCHEMA_REGISTRY_PORT, DYNAMODB_PORT) or
// any free one; a stand-in's fixed port is the one it listens on, and a taken one is one line naming its variable.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidPortError, localPortsFrom } from '../../../local/local-ports.js';
import { startSchemaRegistryStandIn } from '../../../local/schema-registry-stand-in.js';
import { freePort } from '../../../local/free-port.js';

describe('localPortsFrom', () => {
  it('is 3000 for MCP and any free port (0) for the stand-ins when nothing is set', () => {
    expect(localPortsFrom({})).toEqual({ mcp: 3000, stepFunctions: 0, schemaRegistry: 0, dynamoDb: 0 });
  });

  it('takes each variable', () => {
    expect(
      localPortsFrom({
        PORT: '3001',
        STEP_FUNCTIONS_PORT: '8083',
        SCHEMA_REGISTRY_PORT: '8084',
        DYNAMODB_PORT: '8000',
      }),
    ).toEqual({ mcp: 3001, stepFunctions: 8083, schemaRegistry: 8084, dynamoDb: 8000 });
  });

  it('refuses a value that is no port, and one port for two stand-ins, in one line naming the variables', () => {
    expect(() => localPortsFrom({ STEP_FUNCTIONS_PORT: 'eighty' })).toThrow(
      new InvalidPortError("STEP_FUNCTIONS_PORT must be a port number from 0 (any free port) to 65535, not 'eighty'"),
    );
    expect(() => localPortsFrom({ PORT: '70000' })).toThrow(InvalidPortError);
    expect(() => localPortsFrom({ STEP_FUNCTIONS_PORT: '8083', SCHEMA_REGISTRY_PORT: '8083' })).toThrow(
      'STEP_FUNCTIONS_PORT and SCHEMA_REGISTRY_PORT are both 8083: each needs a port of its own',
    );
    expect(localPortsFrom({ STEP_FUNCTIONS_PORT: '0', SCHEMA_REGISTRY_PORT: '0' })).toMatchObject({
      stepFunctions: 0,
      schemaRegistry: 0,
    });
  });
});

describe('the Schema Registry stand-in on a fixed port', () => {
  let taken: Server | undefined;
  afterEach(() => new Promise<void>((done) => (taken ? taken.close(() => done()) : done())));

  it('listens on the port it is given', async () => {
    const port = await freePort();
    const registry = await startSchemaRegistryStandIn({ port });
    expect(registry.endpoint).toBe(`http://127.0.0.1:${port}`);
    await registry.stop();
  });

  it('rejects when the port is taken', async () => {
    taken = createServer();
    const port = await new Promise<number>((resolve) =>
      taken!.listen(0, '127.0.0.1', () => resolve((taken!.address() as { port: number }).port)),
    );
    await expect(startSchemaRegistryStandIn({ port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
