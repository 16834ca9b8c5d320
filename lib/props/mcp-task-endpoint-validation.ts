// Checks of McpTaskEndpoint's props (the tools' are in tool-problems.ts). Each check collects every problem, so one
// synth reports them all.
import { Token } from 'aws-cdk-lib';
import { MAX_ACTIVE_TASKS_LIMIT } from '../../lambda/contract/active-tasks-limit.js';
import { redirectUriPatternProblem } from '../../lambda/contract/redirect-uri-policy.js';
import {
  DEFAULT_DYNAMIC_CLIENT_REGISTRATION,
  DEFAULT_OAUTH_PROXY,
  DEFAULT_RESULT_WAIT,
  DEFAULT_WEBHOOKS,
  MAX_RESULT_WAIT,
  MAX_TASK_EVENT_STREAM_PARALLELIZATION_FACTOR,
  WEBHOOK_DELIVERY_MAX_CONCURRENCY_RANGE,
} from './mcp-task-endpoint-defaults.js';
import type { McpTaskEndpointProps } from './mcp-task-endpoint-props.js';

const DOMAIN_PREFIX = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** `https://`, a lowercase host name or a bracketed IPv6 address, an optional port: an origin, nothing after it. */
const CALLBACK_ORIGIN =
  /^https:\/\/(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** Every problem with the props; empty when they are sound. */
export function propsProblems(props: McpTaskEndpointProps): string[] {
  const problems: string[] = [];
  if (props.existingUserPoolObj && props.userPoolProps)
    problems.push('Pass existingUserPoolObj or userPoolProps, not both');
  if (props.openEndpoint) {
    for (const key of [
      'existingUserPoolObj',
      'userPoolProps',
      'cognitoDomainPrefix',
      'oauthCallbackUrls',
      'machineClient',
      'resourceServerIdentifier',
      'oauthProxy',
      ...OAUTH_PROXY_KEYS,
    ] as const) {
      if (props[key] !== undefined)
        problems.push(`openEndpoint is true, so ${key} would have no effect; remove one of them`);
    }
  }
  problems.push(...oauthProxyProblems(props));
  problems.push(...webhookProblems(props));
  const prefix = props.cognitoDomainPrefix;
  if (
    prefix !== undefined &&
    !Token.isUnresolved(prefix) &&
    (!DOMAIN_PREFIX.test(prefix) || /aws|amazon|cognito/.test(prefix))
  ) {
    problems.push(
      `cognitoDomainPrefix '${prefix}' must be 1-63 lowercase letters, digits or hyphens, and ` +
        `may not contain aws, amazon or cognito`,
    );
  }
  const wait = props.resultWait;
  if (
    wait !== undefined &&
    !wait.isUnresolved() &&
    (wait.toMilliseconds() < 1000 || wait.toMilliseconds() > MAX_RESULT_WAIT.toMilliseconds())
  ) {
    problems.push(
      `resultWait must be between 1 second and ${MAX_RESULT_WAIT.toHumanString()} (a regional ` +
        `API Gateway stream closes after 5 idle minutes)`,
    );
  }
  const plainWait = props.plainCallWait;
  const longestPlainWait = wait !== undefined && !wait.isUnresolved() ? wait : DEFAULT_RESULT_WAIT;
  if (
    plainWait !== undefined &&
    !plainWait.isUnresolved() &&
    (plainWait.toMilliseconds() < 1000 || plainWait.toMilliseconds() > longestPlainWait.toMilliseconds())
  ) {
    problems.push(
      `plainCallWait must be between 1 second and resultWait (${longestPlainWait.toMilliseconds() / 1000} s): ` +
        `the MCP function's timeout is set from resultWait`,
    );
  }
  const rate = props.expirySweepRate;
  if (
    rate !== undefined &&
    !rate.isUnresolved() &&
    !(Number.isInteger(rate.toSeconds() / 60) && rate.toMinutes() >= 1 && rate.toMinutes() <= 24 * 60)
  ) {
    problems.push(
      `expirySweepRate must be a whole number of minutes between 1 minute and 1 day, got ${rate.toHumanString()}`,
    );
  }
  for (const [key, value] of [
    ['throttlingRateLimit', props.throttlingRateLimit],
    ['throttlingBurstLimit', props.throttlingBurstLimit],
    ['mcpFunctionReservedConcurrency', props.mcpFunctionReservedConcurrency],
    ['maxActiveTasksPerOwner', props.maxActiveTasksPerOwner],
    ['maxTaskCreationsPerMinute', props.maxTaskCreationsPerMinute],
    ['reconcilerCallsPerSecond', props.reconcilerCallsPerSecond],
    ['registrationsPerSourcePerHour', props.registrationsPerSourcePerHour],
    ['registrationsPerDay', props.registrationsPerDay],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      problems.push(`${key} must be a positive integer, got ${value}`);
  }
  const factor = rangeProblem('taskEventStreamParallelizationFactor', props.taskEventStreamParallelizationFactor, {
    min: 1,
    max: MAX_TASK_EVENT_STREAM_PARALLELIZATION_FACTOR,
  });
  if (factor !== null) problems.push(factor);
  const maxActive = props.maxActiveTasksPerOwner;
  if (maxActive !== undefined && maxActive > MAX_ACTIVE_TASKS_LIMIT)
    problems.push(`maxActiveTasksPerOwner must be at most ${MAX_ACTIVE_TASKS_LIMIT}, got ${maxActive}`);
  for (const origin of props.corsAllowOrigins ?? []) {
    if (origin !== '*' && !/^https?:\/\/[^/\s,]+$/.test(origin))
      problems.push(`corsAllowOrigins entry '${origin}' must be '*' or a scheme://host[:port] origin`);
  }
  return problems;
}

/** The props that configure the OAuth proxy, and mean nothing without it. */
const OAUTH_PROXY_KEYS = [
  'clientIdMetadataDocuments',
  'dynamicClientRegistration',
  'allowedRedirectUris',
  'registrationsPerSourcePerHour',
  'registrationsPerDay',
] as const;

/** Whether the endpoint runs the OAuth proxy: authentication on, and the proxy not turned off. */
export function usesOAuthProxy(props: McpTaskEndpointProps): boolean {
  return !props.openEndpoint && (props.oauthProxy ?? DEFAULT_OAUTH_PROXY);
}

function oauthProxyProblems(props: McpTaskEndpointProps): string[] {
  const problems: string[] = [];
  if (props.openEndpoint) return problems; // reported with the other props an open endpoint ignores
  if (!usesOAuthProxy(props)) {
    for (const key of OAUTH_PROXY_KEYS) {
      if (props[key] !== undefined)
        problems.push(`oauthProxy is false, so ${key} would have no effect; remove one of them`);
    }
    return problems;
  }
  if (props.existingUserPoolObj && props.cognitoDomainPrefix === undefined) {
    problems.push(
      "The OAuth proxy signs people in on the user pool's hosted domain, and an existingUserPoolObj gets one only " +
        'with cognitoDomainPrefix: give a prefix, or set oauthProxy: false to hand out Cognito tokens yourself',
    );
  }
  if (props.oauthCallbackUrls !== undefined) {
    problems.push(
      'oauthCallbackUrls configures the Cognito client MCP clients use directly, which the OAuth proxy replaces: ' +
        'list redirect URIs in allowedRedirectUris instead, or set oauthProxy: false',
    );
  }
  if (!(props.dynamicClientRegistration ?? DEFAULT_DYNAMIC_CLIENT_REGISTRATION)) {
    for (const key of ['registrationsPerSourcePerHour', 'registrationsPerDay'] as const) {
      if (props[key] !== undefined)
        problems.push(`dynamicClientRegistration is false, so ${key} would have no effect; remove one of them`);
    }
  }
  const uris = props.allowedRedirectUris;
  if (uris !== undefined) {
    if (uris.length === 0)
      problems.push('allowedRedirectUris must list at least one redirect URI pattern, or no client can sign in');
    for (const uri of uris) {
      if (Token.isUnresolved(uri)) continue;
      const problem = redirectUriPatternProblem(uri);
      if (problem !== null) problems.push(`allowedRedirectUris: ${problem}`);
    }
  }
  return problems;
}

/** Why `value` of `key` is no integer in `range`, or null when it is one or unset. */
function rangeProblem(key: string, value: number | undefined, range: { min: number; max: number }): string | null {
  if (value === undefined || (Number.isInteger(value) && value >= range.min && value <= range.max)) return null;
  return `${key} must be an integer from ${range.min} to ${range.max}, got ${value}`;
}

/** Whether the endpoint delivers task events to webhooks. */
export function usesWebhooks(props: McpTaskEndpointProps): boolean {
  return props.webhooks ?? DEFAULT_WEBHOOKS;
}

function webhookProblems(props: McpTaskEndpointProps): string[] {
  if (!usesWebhooks(props)) {
    return (['trustedCallbackOrigins', 'webhookDeliveryMaxConcurrency'] as const)
      .filter((key) => props[key] !== undefined)
      .map((key) => `webhooks is false, so ${key} would have no effect; remove one of them`);
  }
  const problems: string[] = [];
  const cap = rangeProblem(
    'webhookDeliveryMaxConcurrency',
    props.webhookDeliveryMaxConcurrency,
    WEBHOOK_DELIVERY_MAX_CONCURRENCY_RANGE,
  );
  if (cap !== null) problems.push(cap);
  for (const origin of props.trustedCallbackOrigins ?? []) {
    const problem = Token.isUnresolved(origin) ? null : callbackOriginProblem(origin);
    if (problem !== null) problems.push(problem);
  }
  return problems;
}

/**
 * Why `origin` is not a trusted callback origin as the runtime compares them (the URL's `origin`, exactly), or null.
 * The deployed endpoint sends events over TLS only, so plain http is refused here, whatever the local stack allows.
 */
function callbackOriginProblem(origin: string): string | null {
  if (/^http:\/\//i.test(origin))
    return `trustedCallbackOrigins entry '${origin}' is plain http: webhooks are sent over https only`;
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (CALLBACK_ORIGIN.test(origin) && parsed?.origin === origin) return null;
  return (
    `trustedCallbackOrigins entry '${origin}' must be an origin, https://host[:port] in lowercase with no path ` +
    `and no default port` +
    (parsed?.protocol === 'https:' && parsed.origin !== origin ? `; did you mean '${parsed.origin}'?` : '')
  );
}

/** Throws one error listing every problem, or returns when there are none. */
export function throwIfProblems(subject: string, problems: readonly string[]): void {
  if (problems.length > 0) throw new Error(`${subject} is invalid:\n- ${problems.join('\n- ')}`);
}
