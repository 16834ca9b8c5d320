// Lambda entry point for the OAuth proxy behind API Gateway (REST API, Lambda proxy integration, buffered): the
// endpoint's own authorization server in front of the Cognito user pool. Its answers are small, so it does not stream.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { requestFromEvent } from './api-gateway.js';
import { AWS_CLIENT_BOUNDS } from './aws-clients.js';
import { createOAuthProxyFromConfig, oauthProxyConfigFromEnvironment } from './oauth-proxy-core.js';
import { secretValue } from './secret-values.js';
import { defaultLogger } from './default-logger.js';
import { PowertoolsTaskMetrics } from './powertools-metrics.js';

const logger = defaultLogger();
// Built once per Lambda instance: the upstream provider's discovery document and the secrets are read on first use.
const proxy = createOAuthProxyFromConfig(oauthProxyConfigFromEnvironment(process.env, secretValue), {
  dynamoDb: new DynamoDBClient({ ...AWS_CLIENT_BOUNDS }),
  logger,
  metrics: new PowertoolsTaskMetrics(),
});

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const response = await proxy.handle(requestFromEvent(event), {
    sourceIp: event.requestContext?.identity?.sourceIp ?? 'unknown',
  });
  const multiValueHeaders: Record<string, string[]> = {};
  // Each Set-Cookie stays its own header; every other header arrives already folded into one value.
  response.headers.forEach((value, name) => (multiValueHeaders[name] ??= []).push(value));
  return { statusCode: response.status, multiValueHeaders, body: await response.text() };
}
