// The service's name and its default logger, in a module of their own: a bundle that only logs (the durable workflow
// helpers, mcp-tasks-sfn/durable) need not pull in task-core's service, registry and Ajv to get them.
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Logger } from '../core/logger.js';

export const SERVICE_NAME = 'mcp-tasks';

/**
 * Powertools' logger, made by the first record rather than with the function: it opens a console of its own on
 * stdout, and a cold start's first requests (initialize, tools/list) log nothing. Made synchronously, so a record is
 * written before the call returns, as before.
 */
export const defaultLogger = (): Logger => {
  let logger: PowertoolsLogger | undefined;
  const made = () => (logger ??= new PowertoolsLogger({ serviceName: SERVICE_NAME }));
  return {
    info: (message, extra) => made().info(message, extra),
    warn: (message, extra) => made().warn(message, extra),
    error: (message, extra) => made().error(message, extra),
  };
};
