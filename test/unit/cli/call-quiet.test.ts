// `mcp-tasks call --quiet`: stdout holds the task id alone, for `id=$(mcp-tasks call … --quiet)`; whatever would put
// anything else there (--wait, --json, a tool that makes no task) is refused, and says why on stderr.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../cli/cli-errors.js';
import { callCommand, type Output } from '../../../cli/commands.js';
import type { Started, TaskClient, ToolInfo } from '../../../cli/task-client.js';

const TASK_ID = 'f00dfeedf00dfeedf00dfeedf00dfeed';
const RESULT = { content: [{ type: 'text', text: '{"words":2}' }] };

function recordingOutput(json = false): Output & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { json, interactive: false, lines, errors, out: (text) => lines.push(text), err: (text) => errors.push(text) };
}

/** A client serving `tools`, whose task-augmented calls answer `started`; counts the calls that reach the tool. */
function fakeClient(tools: ToolInfo[], started: Started): TaskClient & { calls: number } {
  const client = {
    protocol: 'test',
    calls: 0,
    listTools: async () => tools,
    startTask: async () => {
      client.calls += 1;
      return started;
    },
    callDirect: async () => {
      client.calls += 1;
      return RESULT;
    },
    getTask: async () => ({ taskId: TASK_ID, status: 'working' as const }),
    outcome: async () => ({ status: 'completed' as const, result: RESULT }),
    listTasks: async () => [],
    cancelTask: async () => ({ taskId: TASK_ID, status: 'cancelled' as const }),
    close: async () => {},
  };
  return client;
}

const TEXT_STATS: ToolInfo = { name: 'text_stats', taskSupport: 'optional' };
const A_TASK: Started = { kind: 'task', task: { taskId: TASK_ID, status: 'working', pollInterval: 2000 } };

describe('call --quiet', () => {
  it('prints the task id alone on stdout and nothing on stderr', async () => {
    const output = recordingOutput();
    const code = await callCommand(fakeClient([TEXT_STATS], A_TASK), output, 'text_stats', { quiet: true });
    expect(code).toBe(0);
    expect(output.lines).toEqual([TASK_ID]);
    expect(output.errors).toEqual([]);
  });

  it.each([
    { case: '--wait', options: { quiet: true, wait: true }, json: false, says: /--wait/ },
    { case: '--json', options: { quiet: true }, json: true, says: /--json/ },
  ])('refuses $case before calling the tool', async ({ options, json, says }) => {
    const client = fakeClient([TEXT_STATS], A_TASK);
    const output = recordingOutput(json);
    await expect(callCommand(client, output, 'text_stats', options)).rejects.toThrow(UsageError);
    await expect(callCommand(client, output, 'text_stats', options)).rejects.toThrow(says);
    expect(client.calls).toBe(0);
    expect(output.lines).toEqual([]);
  });

  it('refuses a tool that cannot run as a task, without calling it', async () => {
    const client = fakeClient([{ name: 'lookup', taskSupport: 'forbidden' }], A_TASK);
    const output = recordingOutput();
    await expect(callCommand(client, output, 'lookup', { quiet: true })).rejects.toThrow(
      "Tool 'lookup' does not run as a task (task support: forbidden), so there is no task id to print.",
    );
    expect(client.calls).toBe(0);
  });

  it('exits 2 with nothing on stdout when the server answers at once, and keeps the result on stderr', async () => {
    const output = recordingOutput();
    const client = fakeClient([{ name: 'text_stats' }], { kind: 'immediate', result: RESULT });
    const code = await callCommand(client, output, 'text_stats', { quiet: true });
    expect(code).toBe(2);
    expect(output.lines).toEqual([]);
    expect(output.errors.join('\n')).toContain('there is no task id to print');
    expect(output.errors.join('\n')).toContain('{"words":2}');
  });

  it('leaves call without --quiet as it was: the task, and how to follow it on stderr', async () => {
    const output = recordingOutput();
    await callCommand(fakeClient([TEXT_STATS], A_TASK), output, 'text_stats', {});
    expect(output.lines.join('\n')).toMatch(new RegExp(`^task:\\s+${TASK_ID}$`, 'm'));
    expect(output.errors).toEqual([`Follow it with: mcp-tasks watch ${TASK_ID}`]);
  });
});
