// Lambda entry point for the MCP endpoint behind API Gateway (REST API, Lambda proxy integration).
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createBackend } from './backend.js';
import { configFromEnvironment } from './environment.js';
import { ownerFromEvent, requestFromEvent, resultFromResponse } from './api-gateway.js';

// Built once per Lambda instance, outside the handler, so warm invocations reuse clients and compiled schemas.
const backend = createBackend(configFromEnvironment(process.env));

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const response = await backend.app.handle(requestFromEvent(event), ownerFromEvent(event));
  return resultFromResponse(response);
};
