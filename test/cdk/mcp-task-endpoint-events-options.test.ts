// The props that change how McpTaskEndpoint deploys task events and webhooks: how far the event path scales (the
// stream mapping's parallelization, the cap on delivery instances), `webhooks: false`, trusted callback origins, and
// a customer managed key; and the checks on them.
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { describe, expect, it } from 'vitest';
import { EVENTS_ENV } from '../../lambda/contract/environment-names.js';
import { McpTaskEndpoint } from '../../lib/mcp-task-endpoint.js';
import { logicalId, testStack } from './cdk-app.js';
import type { Resource } from './endpoint-template.js';
import { constructionError, mappingOf, synthEndpoint as synth, variablesOf } from './events-template.js';
import { rolesAllowed } from './oauth-proxy-template.js';

describe('event path scaling', () => {
  const scaled = synth({ taskEventStreamParallelizationFactor: 10, webhookDeliveryMaxConcurrency: 200 });
  const id = (construct: { node: { defaultChild?: unknown } }) => logicalId(scaled.stack, construct);

  it('works as many batches of a stream shard at once as taskEventStreamParallelizationFactor says', () => {
    const mapping = mappingOf(id(scaled.endpoint.taskEventStreamHandler.function), scaled.template);
    expect(mapping['ParallelizationFactor']).toBe(10);
  });

  it('runs at most webhookDeliveryMaxConcurrency delivery instances, as the mapping’s maximum concurrency, reserving none', () => {
    const deliveryId = id(scaled.endpoint.webhookDeliveryHandler!.function);
    expect(mappingOf(deliveryId, scaled.template)['ScalingConfig']).toEqual({ MaximumConcurrency: 200 });
    const delivery = scaled.template.toJSON()['Resources'][deliveryId] as Resource;
    expect(delivery.Properties['ReservedConcurrentExecutions']).toBeUndefined();
  });

  it('reserves concurrency for the MCP function only when mcpFunctionReservedConcurrency asks', () => {
    const reserved = synth({ mcpFunctionReservedConcurrency: 300 });
    const mcp = (source: ReturnType<typeof synth>) =>
      (source.template.toJSON()['Resources'][logicalId(source.stack, source.endpoint.mcpFunction)] as Resource)
        .Properties['ReservedConcurrentExecutions'];
    expect(mcp(reserved)).toBe(300);
    expect(mcp(scaled)).toBeUndefined();
  });

  it('refuses a factor outside 1-10 and a cap outside 2-1,000, every problem at once', () => {
    const error = constructionError({ taskEventStreamParallelizationFactor: 11, webhookDeliveryMaxConcurrency: 1 });
    expect(error).toContain('taskEventStreamParallelizationFactor must be an integer from 1 to 10, got 11');
    expect(error).toContain('webhookDeliveryMaxConcurrency must be an integer from 2 to 1000, got 1');
    for (const factor of [0, 2.5])
      expect(constructionError({ taskEventStreamParallelizationFactor: factor })).toContain(
        `taskEventStreamParallelizationFactor must be an integer from 1 to 10, got ${factor}`,
      );
    expect(constructionError({ webhookDeliveryMaxConcurrency: 1001 })).toContain(
      'webhookDeliveryMaxConcurrency must be an integer from 2 to 1000, got 1001',
    );
  });

  it('refuses a delivery cap with webhooks off, which would have no effect', () => {
    expect(constructionError({ webhooks: false, webhookDeliveryMaxConcurrency: 20 })).toContain(
      'webhooks is false, so webhookDeliveryMaxConcurrency would have no effect; remove one of them',
    );
  });
});

describe('webhooks: false', () => {
  const off = synth({ webhooks: false });
  const streamId = logicalId(off.stack, off.endpoint.taskEventStreamHandler.function);
  const mcpId = logicalId(off.stack, off.endpoint.mcpFunction);

  it('deploys no delivery queue, dead-letter queue, delivery function or sealing key', () => {
    expect(off.endpoint.webhookDeliveryQueue).toBeUndefined();
    expect(off.endpoint.webhookDeliveryDeadLetterQueue).toBeUndefined();
    expect(off.endpoint.webhookDeliveryHandler).toBeUndefined();
    expect(off.endpoint.webhookSealingKey).toBeUndefined();
    const queues = Object.values(off.template.findResources('AWS::SQS::Queue') as Record<string, Resource>);
    // The status dead-letter queue and the stream's failure queue.
    expect(queues).toHaveLength(2);
    for (const queue of queues) expect(queue.Properties['FifoQueue']).toBeUndefined();
    // The requestState key alone.
    off.template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    expect(off.endpoint.operations.webhookDeliveryDeadLetterAlarm).toBeUndefined();
    expect(off.endpoint.operations.webhookDeliveryAgeAlarm).toBeUndefined();
  });

  it('keeps the events table, the stream function and its mapping, with webhooks off in their environment', () => {
    off.template.resourceCountIs('AWS::DynamoDB::Table', 2);
    expect(mappingOf(streamId, off.template)).toMatchObject({ StartingPosition: 'TRIM_HORIZON' });
    for (const functionId of [streamId, mcpId]) {
      const variables = variablesOf(functionId, off.template);
      expect(variables[EVENTS_ENV.webhooksEnabled], functionId).toBe('false');
      expect(variables[EVENTS_ENV.eventTableName], functionId).toEqual({
        Ref: logicalId(off.stack, off.endpoint.eventTable),
      });
      expect(variables[EVENTS_ENV.sealingKeySecretArn], functionId).toBeUndefined();
      expect(variables[EVENTS_ENV.deliveryQueueUrl], functionId).toBeUndefined();
    }
  });

  it('refuses trusted callback origins, which would have no effect', () => {
    expect(constructionError({ webhooks: false, trustedCallbackOrigins: ['https://hooks.example.com'] })).toContain(
      'webhooks is false, so trustedCallbackOrigins would have no effect; remove one of them',
    );
  });
});

describe('trusted callback origins', () => {
  it('are given to the MCP and delivery functions, comma-separated, and not to the stream function', () => {
    const origins = ['https://hooks.example.com', 'https://10.0.0.7:8443', 'https://[fd00::7]:8443'];
    const on = synth({ trustedCallbackOrigins: origins });
    const id = (construct: { node: { defaultChild?: unknown } }) => logicalId(on.stack, construct);
    for (const fn of [on.endpoint.mcpFunction, on.endpoint.webhookDeliveryHandler!.function])
      expect(variablesOf(id(fn), on.template)[EVENTS_ENV.trustedCallbackOrigins]).toBe(origins.join(','));
    expect(
      variablesOf(id(on.endpoint.taskEventStreamHandler.function), on.template)[EVENTS_ENV.trustedCallbackOrigins],
    ).toBeUndefined();
  });

  it('must each be an https origin, written as the runtime compares it; every bad one reported at once', () => {
    const error = constructionError({
      trustedCallbackOrigins: [
        'http://hooks.example.com',
        'https://hooks.example.com/webhooks',
        'https://hooks.example.com/',
        'https://Hooks.Example.com',
        'https://hooks.example.com:443',
        'https://*.example.com',
        'https://user@hooks.example.com',
        'https://hooks.example.com?x=1',
        'hooks.example.com',
      ],
    });
    expect(error).toContain("'http://hooks.example.com' is plain http: webhooks are sent over https only");
    for (const [origin, suggestion] of [
      ['https://hooks.example.com/webhooks', 'https://hooks.example.com'],
      ['https://hooks.example.com/', 'https://hooks.example.com'],
      ['https://Hooks.Example.com', 'https://hooks.example.com'],
      ['https://hooks.example.com:443', 'https://hooks.example.com'],
      ['https://user@hooks.example.com', 'https://hooks.example.com'],
      ['https://hooks.example.com?x=1', 'https://hooks.example.com'],
    ])
      expect(error).toContain(
        `trustedCallbackOrigins entry '${origin}' must be an origin, https://host[:port] in lowercase with no path ` +
          `and no default port; did you mean '${suggestion}'?`,
      );
    for (const origin of ['https://*.example.com', 'hooks.example.com'])
      expect(error).toContain(`trustedCallbackOrigins entry '${origin}' must be an origin`);
    expect(error.match(/trustedCallbackOrigins entry/g)).toHaveLength(9);
  });
});

describe('task events with a customer managed key', () => {
  it('encrypts the events table with the key, and lets the three functions use it (the stream function to read the stream)', () => {
    const keyed = testStack();
    const key = new kms.Key(keyed, 'Key', { enableKeyRotation: true });
    const endpoint = new McpTaskEndpoint(keyed, 'Endpoint', { openEndpoint: true, tableEncryptionKey: key });
    const keyedTemplate = Template.fromStack(keyed);
    const keyId = logicalId(keyed, key);
    expect(
      (keyedTemplate.toJSON()['Resources'][logicalId(keyed, endpoint.eventTable)] as Resource).Properties[
        'SSESpecification'
      ],
    ).toEqual({ SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    const roles = [
      endpoint.mcpHandler.role,
      endpoint.taskEventStreamHandler.role,
      endpoint.webhookDeliveryHandler!.role,
    ].map((role) => logicalId(keyed, role));
    for (const role of roles) expect(rolesAllowed(keyedTemplate, 'kms:Decrypt', keyId)).toContain(role);
  });
});
