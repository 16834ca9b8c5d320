// The routing of 2025-era input requests: the question's id names task and key for any instance; a POSTed
// JSON-RPC response is told apart from a request; each open request is asked once per stream.
import { describe, expect, it } from 'vitest';
import { InputRequestState, type InputRequest } from '../../../lambda/core/input-request.js';
import type { TaskRecord } from '../../../lambda/core/task.js';
import {
  clientResponseOf,
  inputRequestId,
  inputRequestOf,
  inputRequestSender,
  type ClientInputRequest,
} from '../../../lambda/protocol/client-input-requests.js';

const question = (key: string, state: InputRequest['state'] = InputRequestState.Outstanding): InputRequest => ({
  key,
  state,
  askedAt: 0,
  request: { method: 'elicitation/create', params: { message: `about ${key}`, requestedSchema: { type: 'object' } } },
});
const taskWith = (...requests: InputRequest[]): TaskRecord =>
  ({
    taskId: 'task:1',
    inputRequests: Object.fromEntries(requests.map((request) => [request.key, request])),
  }) as unknown as TaskRecord;

describe('input request ids', () => {
  it('name the task and the key, whatever characters the task ID has', () => {
    expect(inputRequestOf(inputRequestId('client.made:id-1', 'input-abc'))).toEqual({
      taskId: 'client.made:id-1',
      key: 'input-abc',
    });
  });

  it('are not confused with any other id', () => {
    for (const id of [
      1,
      'req-1',
      'mcp-tasks-sfn/input/',
      'mcp-tasks-sfn/input/!!!',
      `mcp-tasks-sfn/input/${Buffer.from('["only-one"]').toString('base64url')}`,
      null,
    ]) {
      expect(inputRequestOf(id)).toBeUndefined();
    }
  });
});

describe('clientResponseOf', () => {
  it('takes a result or an error response', () => {
    expect(clientResponseOf({ jsonrpc: '2.0', id: 'x', result: { action: 'decline' } })).toEqual({
      id: 'x',
      result: { action: 'decline' },
    });
    expect(clientResponseOf({ jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } })).toEqual({
      id: 7,
      error: { code: -32601, message: 'Method not found' },
    });
  });

  it('leaves requests, notifications and malformed messages to the SDK', () => {
    for (const body of [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', result: {} },
      { id: 1, result: {} },
      [],
      null,
      'x',
    ]) {
      expect(clientResponseOf(body)).toBeUndefined();
    }
  });
});

describe('inputRequestSender', () => {
  it('asks each open request once per stream, with the related-task meta, and never an answered one', async () => {
    const sent: ClientInputRequest[] = [];
    const onRead = inputRequestSender(
      async (message) => void sent.push(message),
      (taskId) => ({ related: taskId }),
    );
    await onRead(taskWith(question('a'), question('done', InputRequestState.Answered)));
    await onRead(taskWith(question('a'), question('b')));
    expect(sent.map((message) => [message.id, message.method, message.params['_meta']])).toEqual([
      [inputRequestId('task:1', 'a'), 'elicitation/create', { related: 'task:1' }],
      [inputRequestId('task:1', 'b'), 'elicitation/create', { related: 'task:1' }],
    ]);
  });

  it('keeps waiting when the stream is gone', async () => {
    const onRead = inputRequestSender(() => Promise.reject(new Error('stream closed')));
    await expect(onRead(taskWith(question('a')))).resolves.toBeUndefined();
  });
});
