// The dummy identity the local stand-ins accept; no real AWS account is involved.
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * The environment under which the unchanged AWS SDK reaches the stand-ins (AWS_ENDPOINT_URL_* overrides and the
 * dummy identity): what `npm start` and the handler tests give code that builds its clients from the environment.
 */
export function localAwsEnvironment(endpoints: {
  dynamoDbEndpoint: string;
  stepFunctionsEndpoint: string;
  /** The local runner of durable functions, when there is one. */
  lambdaEndpoint?: string | undefined;
}): Record<string, string> {
  return {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamoDbEndpoint,
    AWS_ENDPOINT_URL_SFN: endpoints.stepFunctionsEndpoint,
    ...(endpoints.lambdaEndpoint !== undefined ? { AWS_ENDPOINT_URL_LAMBDA: endpoints.lambdaEndpoint } : {}),
  };
}
