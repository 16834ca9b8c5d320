// Malformed params become -32602 with a reason a person can act on ("name must be a string"), never a
// validator dump. The 1.x SDK checks some requests against its own schemas before any handler of ours runs
// and answers a failure -32603 (or -32602 with the raw Zod output); those are checked here first.
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ProtocolError } from './protocol-errors.js';

/** A schema as both SDKs' Zod schemas expose it (Standard Schema), so one checker serves both eras. */
export interface RequestSchema {
  readonly '~standard': { validate(value: unknown): StandardResult | Promise<StandardResult> };
}
type StandardResult = { readonly issues?: readonly Issue[] };
interface Issue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[];
}

/**
 * Legacy era: the methods whose params the 1.x SDK validates itself before any handler of ours, with its schema (the
 * modern era's are in modern-endpoint.ts, loaded with the 2.x SDK).
 */
export const LEGACY_SDK_VALIDATED: Readonly<Record<string, RequestSchema>> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/call': CallToolRequestSchema,
  'tools/list': ListToolsRequestSchema,
};

const ARTICLE: Readonly<Record<string, string>> = {
  array: 'an array',
  object: 'an object',
  integer: 'an integer',
  record: 'an object',
};

/** One issue in words: where (relative to params) and what is wrong, without the offending input. */
function describeIssue(issue: Issue): string {
  const keys = (issue.path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment));
  const path = keys[0] === 'params' ? keys.slice(1) : keys;
  const where = path.length === 0 ? 'params' : path.join('.');
  const type = /expected (\w+), received (\w+)/.exec(issue.message);
  if (type !== null)
    return type[2] === 'undefined' ? `${where} is required` : `${where} must be ${ARTICLE[type[1]!] ?? `a ${type[1]}`}`;
  // Zod's other messages are plain sentences ("Too small: expected ..."), without the input.
  return `${where}: ${issue.message.split('\n')[0]}`;
}

/** The -32602 error for a request whose params failed a schema, naming each problem once. */
export function invalidParamsError(method: string, issues: readonly Issue[]): ProtocolError {
  const reasons = [...new Set(issues.map(describeIssue))].slice(0, 5);
  return new ProtocolError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${reasons.join('; ')}`);
}

/**
 * The -32602 error for a request whose params the SDK would refuse with a raw dump (-32603 or -32602);
 * `undefined` when the request is fine or is not one the SDK validates (our own handlers check those).
 */
export async function sdkParamsErrorOf(
  message: unknown,
  validated: Readonly<Record<string, RequestSchema>>,
): Promise<ProtocolError | undefined> {
  if (typeof message !== 'object' || message === null || !('id' in message)) return undefined;
  const method = (message as { method?: unknown }).method;
  if (typeof method !== 'string' || !Object.hasOwn(validated, method)) return undefined;
  const { issues } = await validated[method]!['~standard'].validate(message);
  return issues === undefined || issues.length === 0 ? undefined : invalidParamsError(method, issues);
}
