// Answers checked against the input request they answer.
import { describe, expect, it } from 'vitest';
import {
  inputKeyFor,
  inputNeverCameMessage,
  type InputRequest,
  type InputRequestMessage,
} from '../../../lambda/core/input-request.js';
import { inputRequestProblems } from '../../../lambda/contract/input-request-problems.js';
import { answerProblems } from '../../../lambda/input/answer-validation.js';

const FORM: InputRequestMessage = {
  method: 'elicitation/create',
  params: {
    message: 'Refund?',
    requestedSchema: {
      type: 'object',
      properties: { approve: { type: 'boolean' }, amount: { type: 'number', maximum: 10 } },
      required: ['approve'],
    },
  },
};

describe('answerProblems', () => {
  it('accepts an accepted form whose content matches the requested schema', async () => {
    expect(await answerProblems(FORM, { action: 'accept', content: { approve: true, amount: 3 } })).toEqual([]);
  });

  it('accepts decline and cancel without content', async () => {
    expect(await answerProblems(FORM, { action: 'decline' })).toEqual([]);
    expect(await answerProblems(FORM, { action: 'cancel' })).toEqual([]);
  });

  it('refuses content that breaks the requested schema, naming the field', async () => {
    expect(await answerProblems(FORM, { action: 'accept', content: { amount: 3 } })).toEqual([
      "content must have required property 'approve'",
    ]);
    expect(await answerProblems(FORM, { action: 'accept', content: { approve: true, amount: 11 } })).toEqual([
      'content.amount must be <= 10',
    ]);
  });

  it('holds string fields to the formats an elicitation schema may name', async () => {
    const contact: InputRequestMessage = {
      method: 'elicitation/create',
      params: {
        message: 'Where to send the receipt?',
        requestedSchema: {
          type: 'object',
          properties: {
            email: { type: 'string', format: 'email' },
            site: { type: 'string', format: 'uri' },
            on: { type: 'string', format: 'date' },
            at: { type: 'string', format: 'date-time' },
          },
        },
      },
    };
    const good = {
      email: 'ada@example.com',
      site: 'https://example.com/a',
      on: '2026-12-07',
      at: '2026-12-07T01:02:03Z',
    };
    expect(await answerProblems(contact, { action: 'accept', content: good })).toEqual([]);
    const bad = { email: 'not an email', site: 'no scheme', on: '7 Dec', at: 'tomorrow' };
    expect(await answerProblems(contact, { action: 'accept', content: bad })).toEqual([
      'content.email must match format "email"',
      'content.site must match format "uri"',
      'content.on must match format "date"',
      'content.at must match format "date-time"',
    ]);
  });

  it('refuses an unknown action, a missing form and non-form values', async () => {
    expect(await answerProblems(FORM, { action: 'maybe' })).toHaveLength(1);
    expect(await answerProblems(FORM, { action: 'accept' })).toHaveLength(1);
    expect(await answerProblems(FORM, { action: 'accept', content: { approve: { nested: true } } })).toEqual([
      'content.approve must be a string, number, boolean or array of strings',
    ]);
  });

  it('checks sampling and roots answers by their result shapes', async () => {
    expect(
      await answerProblems(
        { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
        { role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } },
      ),
    ).toEqual([]);
    expect(
      await answerProblems(
        { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
        { role: 'assistant' },
      ),
    ).toHaveLength(2);
    expect(await answerProblems({ method: 'roots/list' }, { roots: [{ uri: 'file:///x' }] })).toEqual([]);
    expect(await answerProblems({ method: 'roots/list' }, { roots: [{}] })).toHaveLength(1);
  });
});

describe('the input request model', () => {
  it('derives a stable key from the task token that does not reveal it', () => {
    expect(inputKeyFor('secret-token')).toBe(inputKeyFor('secret-token'));
    expect(inputKeyFor('secret-token')).not.toBe(inputKeyFor('other-token'));
    expect(inputKeyFor('secret-token')).not.toContain('secret');
  });

  it('refuses malformed ask requests', () => {
    expect(inputRequestProblems(FORM)).toEqual([]);
    expect(inputRequestProblems({ method: 'tools/call' })).toHaveLength(1);
    expect(inputRequestProblems({ method: 'elicitation/create', params: { message: 'x' } })).toHaveLength(1);
    expect(
      inputRequestProblems({
        method: 'elicitation/create',
        params: { mode: 'url', message: 'x', requestedSchema: {} },
      }),
    ).toHaveLength(1);
  });

  it('says the input never came while a request is unanswered, and nothing once all are answered', () => {
    const request = (state: InputRequest['state']): Record<string, InputRequest> => ({
      k: { key: 'k', request: FORM, state, askedAt: 0 },
    });
    expect(inputNeverCameMessage(request('outstanding'), 'Execution failed: States.Timeout')).toBe(
      'The input requested ("Refund?") never came before its deadline (Execution failed: States.Timeout).',
    );
    expect(inputNeverCameMessage(request('expired'), undefined, 'States.Timeout')).toContain('never came');
    // A refused repeat of a delivered answer is also `expired`: without a timeout it proves nothing.
    expect(inputNeverCameMessage(request('expired'), 'Execution failed: BoomError')).toBeUndefined();
    expect(inputNeverCameMessage(request('answered'), 'x')).toBeUndefined();
    expect(inputNeverCameMessage(undefined, 'x')).toBeUndefined();
  });
});
