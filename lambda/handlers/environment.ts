// Reads the backend's configuration from environment variables, once, at the composition root.
import { MIN_REQUEST_STATE_KEY_BYTES } from '../protocol/request-state-keys.js';
import { DEFAULT_EXPIRY_SWEEP_SETTINGS } from '../service/expiry-sweep-service.js';
import { DEFAULT_SETTINGS, type TaskServiceSettings } from '../service/settings.js';
import { MAX_ACTIVE_TASKS_LIMIT } from '../contract/active-tasks-limit.js';
import { ENV } from '../contract/environment-names.js';
import type { BackendConfig } from './backend.js';
import type { ExpirySweepConfig } from './expiry-sweep-core.js';
import type { TaskCoreConfig } from './task-core.js';
import { positiveInteger, required } from './environment-values.js';
import { secretValue } from './secret-values.js';
import { taskEventsConfigFromEnvironment } from './events-environment.js';

/** Table and settings only: for functions that serve no tools (status sync). */
export function taskCoreConfigFromEnvironment(env: NodeJS.ProcessEnv): TaskCoreConfig {
  return { tableName: required(env, ENV.tableName), settings: settingsFromEnvironment(env) };
}

/** The MCP endpoint's backend: its tools are the declared catalog `TOOL_CATALOG_ITEM` names, read at first request. */
export function configFromEnvironment(env: NodeJS.ProcessEnv): BackendConfig {
  const allowedHosts = env[ENV.allowedHosts]
    ?.split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
  const requestStateKeyArn = env[ENV.requestStateKeySecretArn];
  const requestStateKey = requestStateKeyArn ? requestStateKeyIn(requestStateKeyArn) : undefined;
  const events = taskEventsConfigFromEnvironment(env);
  return {
    ...taskCoreConfigFromEnvironment(env),
    declaredCatalogKey: required(env, ENV.toolCatalogItem),
    ...(events ? { events } : {}),
    ...(allowedHosts && allowedHosts.length > 0 ? { allowedHosts } : {}),
    ...(requestStateKey ? { requestStateKey } : {}),
    ...(env[ENV.discoveredTools] === 'true' ? { discoveredTools: true } : {}),
  };
}

/** The key in the secret `arn`, read at first use and kept; a key too short to sign with is refused then. */
export function requestStateKeyIn(arn: string, read: (arn: string) => () => Promise<string> = secretValue) {
  const value = read(arn);
  return async (): Promise<string> => {
    const key = await value();
    if (Buffer.byteLength(key) < MIN_REQUEST_STATE_KEY_BYTES)
      throw new Error(`The request-state key in ${arn} must be at least ${MIN_REQUEST_STATE_KEY_BYTES} bytes`);
    return key;
  };
}

/** Table and sweep bounds: for the expiry sweep function. */
export function expirySweepConfigFromEnvironment(env: NodeJS.ProcessEnv): ExpirySweepConfig {
  return {
    tableName: required(env, ENV.tableName),
    settings: {
      maxTasksPerRun: positiveInteger(env, ENV.expirySweepMaxTasks, DEFAULT_EXPIRY_SWEEP_SETTINGS.maxTasksPerRun),
    },
  };
}

function settingsFromEnvironment(env: NodeJS.ProcessEnv): TaskServiceSettings {
  const maxActiveTasksPerOwner = positiveInteger(
    env,
    ENV.maxActiveTasksPerOwner,
    DEFAULT_SETTINGS.maxActiveTasksPerOwner,
  );
  if (maxActiveTasksPerOwner > MAX_ACTIVE_TASKS_LIMIT)
    throw new Error(
      `Environment variable ${ENV.maxActiveTasksPerOwner} must be at most ` +
        `${MAX_ACTIVE_TASKS_LIMIT}, got ${maxActiveTasksPerOwner}`,
    );
  return {
    ...DEFAULT_SETTINGS,
    pollIntervalMs: positiveInteger(env, ENV.pollIntervalMs, DEFAULT_SETTINGS.pollIntervalMs),
    defaultTtlMs: positiveInteger(env, ENV.defaultTtlMs, DEFAULT_SETTINGS.defaultTtlMs),
    maxTtlMs: positiveInteger(env, ENV.maxTtlMs, DEFAULT_SETTINGS.maxTtlMs),
    directCallTimeoutMs: positiveInteger(env, ENV.directCallTimeoutMs, DEFAULT_SETTINGS.directCallTimeoutMs),
    resultWaitMs: positiveInteger(env, ENV.resultWaitMs, DEFAULT_SETTINGS.resultWaitMs),
    handOffPlainCalls: env[ENV.handOffPlainCalls] !== 'false',
    maxActiveTasksPerOwner,
    maxTaskCreationsPerMinute: positiveInteger(
      env,
      ENV.maxTaskCreationsPerMinute,
      DEFAULT_SETTINGS.maxTaskCreationsPerMinute,
    ),
  };
}
