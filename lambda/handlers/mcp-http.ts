// Lambda entry point for the MCP endpoint behind API Gateway (REST API, Lambda proxy integration, STREAM transfer
// mode). Streaming lets a blocking tasks/result outlast API Gateway's 29-second buffered limit.
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createBackend } from './backend.js';
import { configFromEnvironment } from './environment.js';
import {
  ownerFromEvent,
  preludeFromResponse,
  requestFromEvent,
  unauthorizedResponseFor,
  withCors,
} from './api-gateway.js';
import { handlerClients } from './handler-clients.js';
import { signingKeyFromSecret } from '../oauth/access-tokens.js';
import { cognitoMachineTokens, createBearerOwnerResolver } from '../oauth/bearer-owner.js';
import { unauthorizedResponse } from '../protocol/unauthorized.js';
import { secretValue } from './secret-values.js';
import { mcpHttpOptionsFromEnvironment } from './mcp-http-environment.js';
import { PowertoolsTaskMetrics } from './powertools-metrics.js';
import { sendResponse, streamingRuntime, type ResponseStream } from './response-streaming.js';
import { defaultLogger } from './default-logger.js';
import { traced, tracerFromEnvironment } from './tracing.js';
import { onceLoaded } from '../core/once-loaded.js';
import type { DeclaredCatalogStore } from '../store/declared-catalog-store.js';

// Built once per Lambda instance, outside the handler, so warm invocations reuse clients and compiled schemas. The
// first request that may need a tool reads the declared tool catalog (one GetItem per instance) by the short path,
// without the AWS SDK's clients (lean-declared-catalog.ts; with tracing on, through the traced client); the clients
// (and the SDK) load with the first request that calls AWS otherwise.
const metrics = new PowertoolsTaskMetrics();
const tracer = await tracerFromEnvironment(process.env);
const config = configFromEnvironment(process.env);
const backend = createBackend(
  tracer === undefined
    ? { ...config, declaredCatalogReader: (store) => leanCatalogReader(config.tableName, store) }
    : config,
  handlerClients(metrics, tracer),
  defaultLogger(),
  metrics,
);
const options = mcpHttpOptionsFromEnvironment(process.env);
const proxyTokens = options.proxyTokens;
// With the OAuth proxy, API Gateway has no authorizer that knows its tokens: this function checks them.
const bearerOwner = proxyTokens
  ? createBearerOwnerResolver({
      issuer: proxyTokens.issuer,
      resource: proxyTokens.resource,
      signingKey: signingKeyFromSecret(secretValue(proxyTokens.signingKeySecretArn)),
      ...(proxyTokens.machine ? { machine: cognitoMachineTokens(proxyTokens.machine) } : {}),
    })
  : undefined;

export const handler = streamingRuntime.streamifyResponse(
  traced(tracer, async (event: APIGatewayProxyEvent, responseStream: ResponseStream) => {
    const request = requestFromEvent(event);
    const response = await serve(request, event);
    const answer = withCors(response, request.headers.get('origin') ?? undefined, options.corsAllowOrigins);
    await sendResponse(answer, responseStream, preludeFromResponse(answer));
  }),
);

/** The declared catalog's read by the short path, loaded (a chunk of its own) with the first read. */
function leanCatalogReader(tableName: string, fallback: Pick<DeclaredCatalogStore, 'read'>) {
  const reader = onceLoaded(async () => {
    const { LeanDeclaredCatalog } = await import('./lean-declared-catalog.js');
    return new LeanDeclaredCatalog({
      tableName,
      fallback,
      env: process.env,
      onFailure: (error) =>
        metrics.awsCallFailed('DynamoDB', 'GetItem', error instanceof Error ? error.name : 'Unknown'),
    });
  });
  return { read: async (key: string) => (await reader()).read(key) };
}

/** The owner comes from the authorizer, or from the proxy's token; the fixed owner applies only to an open endpoint. */
async function serve(request: Request, event: APIGatewayProxyEvent): Promise<Response> {
  const owner = ownerFromEvent(event) ?? options.openEndpointOwner;
  if (owner !== null) return backend.app.handle(request, owner);
  if (bearerOwner === undefined) return unauthorizedResponseFor(event);
  const bearer = await bearerOwner(request);
  return bearer.owner === null ? unauthorizedResponse(bearer.challenge) : backend.app.handle(request, bearer.owner);
}
