// Powertools Tracer (X-Ray) on the Lambda handlers and their AWS clients, when the deployment turns tracing on (the
// construct's `tracing` prop sets ENV.tracing). The Tracer and the X-Ray SDK load only then, from a chunk of their own:
// with tracing off (the default) they add nothing to a cold start.
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { ENV } from '../contract/environment-names.js';
import type { BackendClients } from './aws-clients.js';
import { SERVICE_NAME } from './default-logger.js';

/** The Tracer when the environment turns tracing on, else `undefined` and nothing loaded. */
export async function tracerFromEnvironment(env: NodeJS.ProcessEnv): Promise<Tracer | undefined> {
  if (env[ENV.tracing] !== 'true') return undefined;
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  return new Tracer({ serviceName: SERVICE_NAME });
}

/** Each AWS call of the clients becomes an X-Ray subsegment (service, operation, retries, errors). */
export function tracedClients(clients: BackendClients, tracer: Tracer | undefined): BackendClients {
  if (tracer === undefined) return clients;
  return {
    dynamoDb: tracer.captureAWSv3Client(clients.dynamoDb),
    stepFunctions: tracer.captureAWSv3Client(clients.stepFunctions),
    ...(clients.lambda !== undefined ? { lambda: tracer.captureAWSv3Client(clients.lambda) } : {}),
  };
}

/**
 * The handler, run inside a `## <handler>` subsegment annotated with the cold start and the service, its error (if
 * any) as metadata: what Powertools' captureLambdaHandler does, for plain functions. Responses are not recorded:
 * they hold the owners' task results.
 */
export function traced<Args extends unknown[], Result>(
  tracer: Tracer | undefined,
  handler: (...args: Args) => Promise<Result>,
): (...args: Args) => Promise<Result> {
  if (tracer === undefined) return handler;
  return async (...args) => {
    const segment = tracer.getSegment();
    const subsegment = segment?.addNewSubsegment(`## ${process.env['_HANDLER'] ?? 'handler'}`);
    if (subsegment !== undefined) tracer.setSegment(subsegment);
    tracer.annotateColdStart();
    tracer.addServiceNameAnnotation();
    try {
      return await handler(...args);
    } catch (error) {
      tracer.addErrorAsMetadata(error as Error);
      throw error;
    } finally {
      subsegment?.close();
      if (segment !== undefined) tracer.setSegment(segment);
    }
  };
}
