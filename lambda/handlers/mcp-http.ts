// Lambda entry point for the MCP endpoint behind API Gateway (REST API, Lambda proxy integration, STREAM transfer
// mode). Streaming lets a blocking tasks/result outlast API Gateway's 29-second buffered limit.
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createBackend } from './backend.js';
import { configFromEnvironment } from './environment.js';
import {
  ownerFromEvent,
  preludeFromResponse,
  requestFromEvent,
  unauthorizedResponse,
  withCors,
} from './api-gateway.js';
import { handlerClients } from './handler-clients.js';
import { mcpHttpOptionsFromEnvironment, withUnpackedToolCatalog } from './mcp-http-environment.js';
import { PowertoolsTaskMetrics } from './powertools-metrics.js';
import { sendResponse, streamingRuntime, type ResponseStream } from './response-streaming.js';
import { defaultLogger } from './task-core.js';
import { traced, tracerFromEnvironment } from './tracing.js';

// Built once per Lambda instance, outside the handler, so warm invocations reuse clients and compiled schemas. The
// AWS clients (and the SDK) load with the first request that calls AWS: initialize, tools/list and ping never do.
const metrics = new PowertoolsTaskMetrics();
const tracer = await tracerFromEnvironment(process.env);
const backend = createBackend(
  configFromEnvironment(withUnpackedToolCatalog(process.env)),
  handlerClients(metrics, tracer),
  defaultLogger(),
  metrics,
);
const options = mcpHttpOptionsFromEnvironment(process.env);

export const handler = streamingRuntime.streamifyResponse(
  traced(tracer, async (event: APIGatewayProxyEvent, responseStream: ResponseStream) => {
    // The owner comes from the authorizer alone; the fixed owner applies only to an endpoint deployed open on purpose.
    const owner = ownerFromEvent(event) ?? options.openEndpointOwner;
    const request = requestFromEvent(event);
    const response = owner === null ? unauthorizedResponse(event) : await backend.app.handle(request, owner);
    const answer = withCors(response, request.headers.get('origin') ?? undefined, options.corsAllowOrigins);
    await sendResponse(answer, responseStream, preludeFromResponse(answer));
  }),
);
