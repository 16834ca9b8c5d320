// The fuzz test's table of hostile requests (test/e2e/fuzz.test.ts): methods × params × bad values, bad task IDs and
// cursors, malformed, huge and deep bodies, wrong headers and batches, in both eras. Deterministic: the same cases on
// every run, each with a label that names it.
import { MODERN_VERSION, modernRequest, standardHeaders } from './modern-client.js';

/** One hostile request: the label a failure is reported by, the raw body and the headers it is POSTed with. */
export interface Case {
  readonly label: string;
  readonly body: string | Uint8Array;
  readonly headers: Record<string, string>;
}

const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
} as const;

function deeplyNested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? { nested: value } : [value];
  return value;
}

/** Deeply nested JSON text, built as text: too deep for a recursive JSON.stringify. */
function deepJson(depth: number): string {
  return `${'{"nested":['.repeat(depth)}"bottom"${']}'.repeat(depth)}`;
}

/** Values of every wrong type, plus edge values of the right ones. */
const BAD_VALUES: readonly unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  '',
  ' ',
  'x',
  '1000',
  true,
  false,
  [],
  [1, 'a'],
  {},
  { a: 1 },
  'x'.repeat(20_000),
  '\u0000\ud800',
  deeplyNested(200),
];

/** Bad task IDs and cursors, for the methods that take them. */
const BAD_TASK_IDS: readonly string[] = [
  '',
  ' ',
  'unknown-id',
  '../../etc/passwd',
  'alice#x',
  "x' OR '1'='1",
  'a'.repeat(10_000),
  '\u0000',
  '🙂',
  'id with spaces',
  'ARN:aws:states:us-east-1:1:x'.toLowerCase(),
];
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const BAD_CURSORS: readonly string[] = [
  '',
  '!!!',
  'bm90LWEtY3Vyc29y',
  cursorOf({}),
  cursorOf(null),
  cursorOf({ pk: 5, createdAt: 'x', listOwner: 'alice' }),
  cursorOf({ pk: 'alice#x', createdAt: 1e308, listOwner: 'alice' }),
  cursorOf({ pk: 'alice#x', createdAt: -1e308, listOwner: 'alice' }),
  cursorOf({ pk: 'alice#x', createdAt: 1, listOwner: 'bob' }),
  cursorOf({ pk: 'alice#x', createdAt: 1.5, listOwner: 'alice' }),
  cursorOf({ pk: 'x'.repeat(5_000), createdAt: 1, listOwner: 'alice' }),
  'A'.repeat(50_000),
];

/** Each method's valid params: the fuzzer replaces one at a time (and the whole params) with bad values. */
const LEGACY_METHODS: Readonly<Record<string, Record<string, unknown>>> = {
  initialize: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
  ping: {},
  'tools/list': { cursor: 'x' },
  'tools/call': { name: 'no_such_tool', arguments: { text: 'a' }, task: { ttl: 1000 } },
  'tasks/get': { taskId: 'unknown-id' },
  'tasks/result': { taskId: 'unknown-id' },
  'tasks/list': { cursor: 'bm90LWEtY3Vyc29y' },
  'tasks/cancel': { taskId: 'unknown-id' },
  'tasks/delete': { taskId: 'unknown-id' },
};
const MODERN_METHODS: Readonly<Record<string, Record<string, unknown>>> = {
  'tools/list': { cursor: 'x' },
  'tools/call': { name: 'no_such_tool', arguments: { text: 'a' } },
  'tasks/get': { taskId: 'unknown-id' },
  'tasks/update': { taskId: 'unknown-id', inputResponses: {} },
  'tasks/cancel': { taskId: 'unknown-id' },
  'subscriptions/listen': { notifications: { taskIds: ['unknown-id'] } },
  'prompts/list': {},
  'resources/list': {},
  'resources/read': { uri: 'file:///x' },
};

let nextId = 1;

function legacyCase(label: string, message: Record<string, unknown>, headers: Record<string, string> = {}): Case {
  return { label, body: JSON.stringify(message), headers: { ...LEGACY_HEADERS, ...headers } };
}

function modernCase(label: string, method: string, params: unknown, headers: Record<string, string> = {}): Case {
  const message = modernRequest(method, {});
  const withParams = {
    ...message,
    params:
      typeof params === 'object' && params !== null && !Array.isArray(params)
        ? { ...params, _meta: message.params!['_meta'] }
        : params,
  };
  const standard = {
    ...LEGACY_HEADERS,
    ...standardHeaders({
      method,
      params: typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {},
    }),
  };
  // fetch refuses header values outside visible ASCII; the server then sees the header missing instead.
  for (const [name, value] of Object.entries(standard))
    if (!/^[\x20-\x7e]*$/.test(value)) delete (standard as Record<string, string>)[name];
  return { label, body: JSON.stringify(withParams), headers: { ...standard, ...headers } };
}

/** methods × params × bad values, in both eras. */
export function wrongTypeCases(): Case[] {
  const cases: Case[] = [];
  for (const [method, valid] of Object.entries(LEGACY_METHODS)) {
    for (const bad of BAD_VALUES)
      cases.push(
        legacyCase(`legacy ${method} params=${String(bad).slice(0, 20)}`, {
          jsonrpc: '2.0',
          id: nextId++,
          method,
          params: bad,
        }),
      );
    for (const key of [...Object.keys(valid), '_meta']) {
      for (const bad of BAD_VALUES) {
        cases.push(
          legacyCase(`legacy ${method} ${key}=${String(bad).slice(0, 20)}`, {
            jsonrpc: '2.0',
            id: nextId++,
            method,
            params: { ...valid, [key]: bad },
          }),
        );
      }
    }
  }
  for (const [method, valid] of Object.entries(MODERN_METHODS)) {
    for (const key of Object.keys(valid)) {
      for (const bad of BAD_VALUES)
        cases.push(modernCase(`modern ${method} ${key}=${String(bad).slice(0, 20)}`, method, { ...valid, [key]: bad }));
    }
  }
  return cases;
}

export function taskIdAndCursorCases(): Case[] {
  const cases: Case[] = [];
  for (const taskId of BAD_TASK_IDS) {
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/delete'])
      cases.push(
        legacyCase(`legacy ${method} taskId=${taskId.slice(0, 20)}`, {
          jsonrpc: '2.0',
          id: nextId++,
          method,
          params: { taskId },
        }),
      );
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'])
      cases.push(modernCase(`modern ${method} taskId=${taskId.slice(0, 20)}`, method, { taskId }));
    // SEP-1686: the client names the task it creates.
    cases.push(
      legacyCase(`sep-1686 create taskId=${taskId.slice(0, 20)}`, {
        jsonrpc: '2.0',
        id: nextId++,
        method: 'tools/call',
        params: {
          name: 'no_such_tool',
          arguments: {},
          _meta: { 'modelcontextprotocol.io/task': { taskId, keepAlive: -1 } },
        },
      }),
    );
  }
  for (const cursor of BAD_CURSORS) {
    cases.push(
      legacyCase(`legacy tasks/list cursor=${cursor.slice(0, 20)}`, {
        jsonrpc: '2.0',
        id: nextId++,
        method: 'tasks/list',
        params: { cursor },
      }),
    );
    cases.push(
      legacyCase(`legacy tools/list cursor=${cursor.slice(0, 20)}`, {
        jsonrpc: '2.0',
        id: nextId++,
        method: 'tools/list',
        params: { cursor },
      }),
    );
    cases.push(modernCase(`modern tools/list cursor=${cursor.slice(0, 20)}`, 'tools/list', { cursor }));
  }
  for (const id of [null, {}, [], 1.5, -1, 'i'.repeat(300), 'i'.repeat(200_000), true]) {
    cases.push(
      legacyCase(`legacy id=${JSON.stringify(id).slice(0, 20)}`, {
        jsonrpc: '2.0',
        id,
        method: 'tools/list',
        params: {},
      }),
    );
  }
  return cases;
}

export function malformedBodyCases(): Case[] {
  const texts = [
    '',
    ' ',
    '{',
    '}',
    '{"jsonrpc": "2.0", "id": 1, "method": ',
    'null',
    '5',
    '"x"',
    'true',
    '{}',
    '{"jsonrpc":"2.0"}',
    '{"jsonrpc":"2.0","id":1}',
    '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":1,"method":5}',
    '{"jsonrpc":"2.0","id":1,"method":null}',
    '{"jsonrpc":"2.0","method":"tools/list"}',
    '{"jsonrpc":"2.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}',
    '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}',
    '{"__proto__":{"admin":true},"jsonrpc":"2.0","id":1,"method":"ping"}',
    '['.repeat(100_000),
    '{"a":'.repeat(50_000),
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text_stats","arguments":${deepJson(5_000)}}}`,
    `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"x","_meta":${deepJson(5_000)}}}`,
    `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${deepJson(5_000)}}`,
  ];
  const cases: Case[] = [];
  texts.forEach((body, index) => {
    cases.push({ label: `legacy malformed #${index}`, body, headers: { ...LEGACY_HEADERS } });
    cases.push({
      label: `modern malformed #${index}`,
      body,
      headers: { ...LEGACY_HEADERS, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' },
    });
  });
  cases.push({
    label: 'invalid UTF-8',
    body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    headers: { ...LEGACY_HEADERS },
  });
  const huge = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: { _meta: { padding: 'x'.repeat(6 * 1024 * 1024) } },
  });
  cases.push({ label: 'legacy 6 MiB valid JSON', body: huge, headers: { ...LEGACY_HEADERS } });
  cases.push({
    label: 'modern 6 MiB valid JSON',
    body: huge,
    headers: { ...LEGACY_HEADERS, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' },
  });
  return cases;
}

export function headerAndBatchCases(): Case[] {
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
  const cases: Case[] = [];
  const headerVariants: Record<string, string>[] = [
    { 'content-type': 'text/plain' },
    { 'content-type': '' },
    { accept: 'text/html' },
    { accept: '' },
    { 'mcp-protocol-version': '9999-99-99' },
    { 'mcp-protocol-version': '' },
    { 'mcp-protocol-version': 'x'.repeat(4_000) },
    { 'mcp-protocol-version': MODERN_VERSION },
    { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tasks/get' },
    { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list', 'mcp-name': 'text_stats' },
    { 'mcp-session-id': 'not-a-session' },
    { 'last-event-id': 'x' },
  ];
  headerVariants.forEach((headers, index) =>
    cases.push(legacyCase(`headers #${index}`, { ...list, id: nextId++ }, headers)),
  );
  for (const [method, params] of [
    ['tools/call', { name: 'text_stats', arguments: { text: 'a' } }],
    ['tasks/get', { taskId: 'unknown-id' }],
  ] as const) {
    cases.push(modernCase(`modern ${method} wrong Mcp-Name`, method, params, { 'mcp-name': 'something-else' }));
    cases.push(modernCase(`modern ${method} wrong Mcp-Method`, method, params, { 'mcp-method': 'tools/list' }));
    cases.push(modernCase(`modern ${method} no Mcp-Method`, method, params, { 'mcp-method': '' }));
  }
  const call = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'text_stats', arguments: { text: 'a' }, task: {} },
  });
  for (const batch of [
    [],
    [1],
    [list],
    [list, { ...list, id: 2 }],
    [[list]],
    Array.from({ length: 100 }, (_, index) => call(index + 1)),
  ]) {
    cases.push({ label: `batch of ${batch.length}`, body: JSON.stringify(batch), headers: { ...LEGACY_HEADERS } });
  }
  return cases;
}
