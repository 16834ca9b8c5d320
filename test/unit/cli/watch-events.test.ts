// `mcp-tasks watch` over the Events extension: each event of the task's log printed once (a plain line, or a JSON line
// under --json) across a dropped connection, then the result as today; a stream the server will not give falls back
// to polling tasks/get; a client without the extension polls as before.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UnknownTaskError } from '../../../cli/cli-errors.js';
import { watchCommand, type Output } from '../../../cli/commands.js';
import { HttpTaskEvents } from '../../../cli/event-stream.js';
import { taskInfoOfEvent } from '../../../cli/event-watch.js';
import type { TaskClient, TaskEvents, TaskInfo, TaskOutcome } from '../../../cli/task-client.js';
import { fakeEventsServer, logOf, occurrence, TASK_ID, type ConnectionPlan } from './fake-events-server.js';

const RESULT = { content: [{ type: 'text', text: 'all done' }] };

function recordingOutput(json: boolean): Output & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    json,
    interactive: false,
    lines,
    errors,
    out: (text) => void lines.push(text),
    err: (text) => void errors.push(text),
  };
}

/** A client whose getTask answers `states` in turn (the last one again and again). */
function fakeClient(
  events: TaskEvents | undefined,
  states: TaskInfo[],
  outcome: TaskOutcome = { status: 'completed', result: RESULT },
): TaskClient & { gets: number } {
  let gets = 0;
  return {
    protocol: 'test',
    events,
    get gets() {
      return gets;
    },
    listTools: async () => [],
    startTask: async () => {
      throw new Error('not used');
    },
    callDirect: async () => RESULT,
    getTask: async () => states[Math.min(gets++, states.length - 1)]!,
    outcome: async () => outcome,
    listTasks: async () => [],
    cancelTask: async () => states.at(-1)!,
    close: async () => {},
  };
}

const WORKING: TaskInfo = { taskId: TASK_ID, status: 'working', pollInterval: 250 };
const COMPLETED: TaskInfo = { taskId: TASK_ID, status: 'completed' };

function eventsOn(length: number, plans: ConnectionPlan[] = []) {
  const server = fakeEventsServer(logOf(length), plans);
  const events = new HttpTaskEvents({ endpoint: { url: 'http://127.0.0.1:1/mcp' }, fetch: server.fetch });
  return { events, requests: server.requests };
}

let stderr: string[];
beforeEach(() => {
  stderr = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

describe('watch over the event stream', () => {
  it('--json prints one line per event, each once across a dropped connection, then the outcome', async () => {
    const { events, requests } = eventsOn(5, [{ events: 2, end: 'error' }, {}]);
    const output = recordingOutput(true);
    const code = await watchCommand(fakeClient(events, [WORKING, COMPLETED]), output, TASK_ID);
    expect(code).toBe(0);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const lines = output.lines.map((line) => JSON.parse(line) as Record<string, any>);
    expect(lines.slice(0, -1).map((line) => line['event']['data']['seq'])).toEqual([1, 2, 3, 4, 5]);
    expect(lines.slice(0, -1)[0]!['event']).toEqual(occurrence(1));
    expect(lines.at(-1)).toMatchObject({
      task: { taskId: TASK_ID, status: 'completed' },
      outcome: { status: 'completed', result: RESULT },
    });
    expect(requests.map((request) => request.params['cursor'])).toEqual(['0', '2']);
    // --json keeps stderr quiet: no live lines, no notes.
    expect(stderr).toEqual([]);
  });

  it('prints a plain line per event and a note on reconnecting, then the headline and the result', async () => {
    const { events } = eventsOn(3, [{ events: 1, end: 'close' }, {}]);
    const output = recordingOutput(false);
    const code = await watchCommand(fakeClient(events, [WORKING, COMPLETED]), output, TASK_ID);
    expect(code).toBe(0);
    expect(stderr.join('')).toBe(
      '#1 working · Step 1 · [##------------------] 10%\n' +
        'The event stream dropped (the stream ended before the final response); resuming after cursor 1 ' +
        '(reconnection 1).\n' +
        '#2 working · Step 2 · [####----------------] 20%\n' +
        '#3 completed\n',
    );
    expect(output.errors).toEqual([`Task ${TASK_ID} completed.`]);
    expect(output.lines).toEqual(['all done']);
  });

  it('exits with the outcome’s code: 1 for a failed task', async () => {
    const { events } = eventsOn(2);
    const output = recordingOutput(false);
    const code = await watchCommand(
      fakeClient(events, [WORKING, { taskId: TASK_ID, status: 'failed' }], { status: 'failed', error: 'boom' }),
      output,
      TASK_ID,
    );
    expect(code).toBe(1);
    expect(output.errors).toEqual([`Task ${TASK_ID} failed: boom`]);
  });

  it('falls back to polling tasks/get when the server refuses the stream', async () => {
    const { events } = eventsOn(3, [{ rpcError: { code: -32601, message: 'Method not found: events/stream' } }]);
    const output = recordingOutput(false);
    const client = fakeClient(events, [WORKING, WORKING, COMPLETED]);
    const code = await watchCommand(client, output, TASK_ID);
    expect(code).toBe(0);
    expect(stderr[0]).toBe('The server does not offer events/stream. Polling instead.\n');
    expect(client.gets).toBeGreaterThanOrEqual(3);
    expect(output.lines).toEqual(['all done']);
  });

  it('reports an unknown task as the stream does', async () => {
    const { events } = eventsOn(1, [{ rpcError: { code: -32011, message: 'Task not found' } }]);
    await expect(watchCommand(fakeClient(events, [WORKING]), recordingOutput(true), TASK_ID)).rejects.toThrow(
      UnknownTaskError,
    );
  });

  it('does not open a stream for a task that has already ended', async () => {
    const { events, requests } = eventsOn(2);
    const output = recordingOutput(true);
    expect(await watchCommand(fakeClient(events, [COMPLETED]), output, TASK_ID)).toBe(0);
    expect(requests).toEqual([]);
    expect(output.lines).toHaveLength(1);
  });
});

describe('watch without the Events extension', () => {
  it('polls tasks/get as before', async () => {
    const output = recordingOutput(false);
    const client = fakeClient(undefined, [WORKING, { ...WORKING, statusMessage: 'half way' }, COMPLETED]);
    expect(await watchCommand(client, output, TASK_ID)).toBe(0);
    expect(stderr.join('')).toBe('working\nworking: half way\n');
    expect(output.lines).toEqual(['all done']);
  });
});

describe('taskInfoOfEvent', () => {
  it('carries status, message, time and a count the live line can draw', () => {
    expect(taskInfoOfEvent(occurrence(3))).toEqual({
      taskId: TASK_ID,
      status: 'working',
      statusMessage: 'Step 3',
      lastUpdatedAt: '2026-12-03T00:00:03.000Z',
      progress: { progress: 3, total: 10 },
    });
  });
});
