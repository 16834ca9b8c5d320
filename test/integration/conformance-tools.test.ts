// The conformance suite's fixture tools as they run: each state machine on the emulator, started with the real SFN
// client, its output turned into the tool result the scenarios expect.
import { randomUUID } from 'node:crypto';
import {
  DescribeExecutionCommand,
  StartExecutionCommand,
  StopExecutionCommand,
  type DescribeExecutionCommandOutput,
} from '@aws-sdk/client-sfn';
import { afterAll, describe, expect, it } from 'vitest';
import { toolResultFromExecutionOutput } from '../../lambda/core/tool-result.js';
import { ToolRegistry } from '../../lambda/tools/tool-registry.js';
import { conformanceTools, exampleTools, localAwsClients } from '../support/local-backend.js';

const clients = localAwsClients();
const sfn = clients.stepFunctions;
afterAll(() => {
  clients.dynamoDb.destroy();
  sfn.destroy();
});

const tool = (name: string) => {
  const found = conformanceTools().find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no conformance tool ${name}`);
  return found;
};

async function start(toolName: string, args: Record<string, unknown> = {}): Promise<string> {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({
      stateMachineArn: tool(toolName).stateMachineArn,
      name: `t-${randomUUID()}`,
      input: JSON.stringify(args),
    }),
  );
  return executionArn!;
}

/** Polls until the execution leaves RUNNING; the cap is generous, far beyond what any fixture needs. */
async function untilClosed(executionArn: string): Promise<DescribeExecutionCommandOutput> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (execution.status !== 'RUNNING') return execution;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${executionArn} is still running`);
}

async function run(toolName: string, args: Record<string, unknown> = {}) {
  const execution = await untilClosed(await start(toolName, args));
  expect(execution.status, execution.cause).toBe('SUCCEEDED');
  return toolResultFromExecutionOutput(execution.output);
}

describe('conformance tool catalog', () => {
  it('registers every fixture apart from the example tools', () => {
    const names = conformanceTools().map(({ name }) => name);
    expect(names).toEqual(
      expect.arrayContaining([
        'greet',
        'slow_compute',
        'failing_job',
        'protocol_error_job',
        'test_simple_text',
        'json_schema_2020_12_tool',
      ]),
    );
    expect(exampleTools().filter(({ name }) => names.includes(name))).toEqual([]);
  });

  it('carries each fixture’s task support into its tool definition', () => {
    expect(
      Object.fromEntries(
        ['greet', 'slow_compute', 'failing_job', 'protocol_error_job', 'test_simple_text'].map((name) => [
          name,
          tool(name).taskSupport,
        ]),
      ),
    ).toEqual({
      greet: 'forbidden',
      slow_compute: 'optional',
      failing_job: 'required',
      protocol_error_job: 'optional',
      test_simple_text: 'forbidden',
    });
  });

  it('lists first a tool that takes no arguments and never runs as a task (http-header-validation calls it with {})', async () => {
    const [first] = conformanceTools();
    expect(first).toMatchObject({ name: 'test_simple_text', taskSupport: 'forbidden' });
    await expect(new ToolRegistry(conformanceTools()).validateArguments(first!.name, {})).resolves.toBeUndefined();
  });

  it('keeps json_schema_2020_12_tool’s 2020-12 keywords as the scenario checks them', () => {
    expect(tool('json_schema_2020_12_tool').inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { address: { $anchor: 'addressDef', type: 'object' } },
      properties: { address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
    });
  });

  it('validates json_schema_2020_12_tool’s arguments in the 2020-12 dialect', async () => {
    const registry = new ToolRegistry(conformanceTools());
    await expect(
      registry.validateArguments('json_schema_2020_12_tool', {
        contactMethod: 'phone',
        phone: '555',
        address: { city: 'Oslo' },
      }),
    ).resolves.toBeUndefined();
    await expect(
      registry.validateArguments('json_schema_2020_12_tool', { contactMethod: 'phone', email: 'a@example.com' }),
    ).rejects.toThrow(/must have required property 'phone'/);
  });

  it('offers a string parameter annotated with x-mcp-header (http-custom-header-server-validation)', () => {
    expect(tool('test_custom_header').inputSchema['properties']).toMatchObject({
      region: { type: 'string', 'x-mcp-header': 'Region' },
    });
  });
});

describe('content fixtures', () => {
  it('test_simple_text returns the scenario’s text', async () => {
    expect(await run('test_simple_text')).toEqual({
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
  });

  it('test_image_content returns a PNG image', async () => {
    const result = await run('test_image_content');
    expect(result.content).toEqual([{ type: 'image', data: expect.any(String), mimeType: 'image/png' }]);
    expect(
      Buffer.from(result.content[0]!['data'] as string, 'base64')
        .subarray(1, 4)
        .toString('ascii'),
    ).toBe('PNG');
  });

  it('test_audio_content returns a complete WAV file', async () => {
    const result = await run('test_audio_content');
    expect(result.content).toEqual([{ type: 'audio', data: expect.any(String), mimeType: 'audio/wav' }]);
    const wav = Buffer.from(result.content[0]!['data'] as string, 'base64');
    expect([wav.toString('ascii', 0, 4), wav.toString('ascii', 8, 12), wav.toString('ascii', 36, 40)]).toEqual([
      'RIFF',
      'WAVE',
      'data',
    ]);
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
  });

  it('test_embedded_resource returns an embedded text resource', async () => {
    expect(await run('test_embedded_resource')).toEqual({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    });
  });

  it('test_multiple_content_types returns text, image and resource blocks', async () => {
    const result = await run('test_multiple_content_types');
    expect(result.content.map((block) => block.type)).toEqual(['text', 'image', 'resource']);
    expect(result.content[2]).toEqual({
      type: 'resource',
      resource: {
        uri: 'test://mixed-content-resource',
        mimeType: 'application/json',
        text: '{"test":"data","value":123}',
      },
    });
  });

  it('test_error_handling returns a tool error, from a succeeded execution', async () => {
    expect(await run('test_error_handling')).toEqual({
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    });
  });

  it('json_schema_2020_12_tool echoes its arguments', async () => {
    expect((await run('json_schema_2020_12_tool', { email: 'a@example.com' })).content).toEqual([
      { type: 'text', text: 'JSON Schema 2020-12 tool called with: {"email":"a@example.com"}' },
    ]);
  });

  it('test_custom_header echoes the region', async () => {
    expect(await run('test_custom_header', { region: 'us-west1' })).toEqual({
      content: [{ type: 'text', text: 'Region: us-west1' }],
    });
  });

  it('the server-stateless diagnostics answer with plain text', async () => {
    expect(await run('test_logging_tool')).toEqual({ content: [{ type: 'text', text: 'Logging evaluated' }] });
    expect(await run('test_streaming_elicitation')).toEqual({
      content: [{ type: 'text', text: 'Streaming complete' }],
    });
    expect(await run('test_missing_capability')).toEqual({
      content: [{ type: 'text', text: 'Sampling capability was declared' }],
    });
  });
});

describe('task fixtures', () => {
  it('greet says hello to the name', async () => {
    expect(await run('greet', { name: 'World' })).toEqual({ content: [{ type: 'text', text: 'Hello, World!' }] });
  });

  it('slow_compute with seconds 0 returns its result at once', async () => {
    expect(await run('slow_compute', { seconds: 0, label: 'instant' })).toEqual({
      content: [{ type: 'text', text: "slow_compute 'instant' finished after 0 s" }],
    });
  });

  it('slow_compute returns its result after the requested wait', async () => {
    expect(await run('slow_compute', { seconds: 1 })).toEqual({
      content: [{ type: 'text', text: 'slow_compute finished after 1 s' }],
    });
  });

  it('slow_compute can be stopped while it waits, and then has no result', async () => {
    const executionArn = await start('slow_compute', { seconds: 60, label: 'cancel-me' });
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
    await sfn.send(new StopExecutionCommand({ executionArn, error: 'TaskCancelled', cause: 'tasks/cancel' }));
    const execution = await untilClosed(executionArn);
    expect(execution).toMatchObject({ status: 'ABORTED', error: 'TaskCancelled' });
    expect(execution.output).toBeUndefined();
  });

  it('failing_job runs, then reports a tool error from a succeeded execution', async () => {
    const result = await run('failing_job');
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('failing_job failed') }]);
  });

  it('protocol_error_job fails its execution, with no output', async () => {
    const execution = await untilClosed(await start('protocol_error_job'));
    expect(execution).toMatchObject({
      status: 'FAILED',
      error: 'FixtureCrash',
      cause: expect.stringContaining('protocol_error_job crashed'),
    });
    expect(execution.output).toBeUndefined();
  });
});
