// The service's name and its default logger, in a module of their own: a bundle that only logs (the durable workflow
// helpers, mcp-tasks-sfn/durable) need not pull in task-core's service, registry and Ajv to get them.
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Logger } from '../core/logger.js';

export const SERVICE_NAME = 'mcp-tasks';

export const defaultLogger = (): Logger => new PowertoolsLogger({ serviceName: SERVICE_NAME });
