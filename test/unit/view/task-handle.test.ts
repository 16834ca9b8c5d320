import { describe, expect, it } from 'vitest';
import { taskIdOfInput, taskIdOfResult, textOfResult } from '../../../view/task-handle.js';

const ID = '0123456789abcdef0123456789abcdef';

describe('taskIdOfResult', () => {
  it('finds a handed-off call’s or a status tool’s handle in _meta, under either related-task key', () => {
    const content = [{ type: 'text', text: 'still running' }];
    expect(taskIdOfResult({ content, _meta: { 'io.modelcontextprotocol/related-task': { taskId: ID } } })).toBe(ID);
    expect(taskIdOfResult({ content, _meta: { 'modelcontextprotocol.io/related-task': { taskId: ID } } })).toBe(ID);
  });

  it('finds a task-augmented call’s task, 2025-11-25 and 2026-07-28', () => {
    expect(taskIdOfResult({ task: { taskId: ID, status: 'working' } })).toBe(ID);
    expect(taskIdOfResult({ resultType: 'task', taskId: ID, status: 'working' })).toBe(ID);
  });

  it('finds none in a call that ended within its wait', () => {
    expect(taskIdOfResult({ content: [{ type: 'text', text: '3 words' }], structuredContent: { taskId: ID } })).toBe(
      undefined,
    );
    expect(textOfResult({ content: [{ type: 'text', text: '3 words' }] })).toBe('3 words');
  });
});

describe('taskIdOfInput', () => {
  it('reads the task id from a status tool’s arguments only', () => {
    expect(taskIdOfInput('task_result', { taskId: ID })).toBe(ID);
    expect(taskIdOfInput('analyze_documents', { taskId: ID })).toBeUndefined();
    expect(taskIdOfInput(undefined, { taskId: ID })).toBeUndefined();
  });
});
