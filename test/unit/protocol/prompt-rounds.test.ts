import type { ServerContext } from '@modelcontextprotocol/server';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_PROMPTS } from '../../../lambda/conformance-tools/conformance-tool-catalog.js';
import { PromptRegistry } from '../../../lambda/prompts/prompt-registry.js';
import { getPrompt, promptListing } from '../../../lambda/protocol/prompt-rounds.js';

const NAME = 'test_input_required_result_prompt';
const GREETING = {
  name: 'greeting',
  title: 'Greeting',
  description: 'Says hello',
  arguments: [{ name: 'who', required: true }],
  render: (args: Readonly<Record<string, string>>) => [
    { role: 'user' as const, content: { type: 'text' as const, text: `Hello, ${args['who']}!` } },
  ],
};
const prompts = new PromptRegistry([...CONFORMANCE_PROMPTS, GREETING]);

/** The part of a request's context prompts/get reads: the declared capabilities and the retry's answers. */
function context(inputResponses?: Record<string, unknown>, capabilities: object = { elicitation: {} }): ServerContext {
  return {
    mcpReq: { envelope: { [CLIENT_CAPABILITIES_META_KEY]: capabilities }, inputResponses },
  } as unknown as ServerContext;
}

const accepted = (content: unknown) => ({ user_context: { action: 'accept', content } });

describe('prompts/list', () => {
  it('lists each prompt with its title and arguments, not its ask or renderer', () => {
    expect(promptListing(prompts)).toEqual([
      {
        name: NAME,
        title: 'Asks for context first',
        description: 'Asks the client what context to use (key user_context), then renders a prompt with it.',
      },
      { name: 'greeting', title: 'Greeting', description: 'Says hello', arguments: [{ name: 'who', required: true }] },
    ]);
  });
});

describe('prompts/get', () => {
  it('renders a prompt without an ask at once, from its arguments', async () => {
    expect(await getPrompt(prompts, { name: 'greeting', arguments: { who: 'Ada' } }, context(undefined, {}))).toEqual({
      description: 'Says hello',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }],
    });
  });

  it('answers input_required with the one elicitation while no answer came, without requestState', async () => {
    const result = await getPrompt(prompts, { name: NAME }, context());
    expect(result).toEqual({
      resultType: 'input_required',
      inputRequests: {
        user_context: {
          method: 'elicitation/create',
          params: {
            message: 'What context should the prompt use?',
            requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
          },
        },
      },
    });
  });

  it('renders with the accepted answer', async () => {
    expect(await getPrompt(prompts, { name: NAME }, context(accepted({ context: 'test context' })))).toEqual({
      description: expect.any(String),
      messages: [{ role: 'user', content: { type: 'text', text: 'Use this context: test context' } }],
    });
  });

  it('asks again, saying why, when the content does not fit the requested schema', async () => {
    const result = (await getPrompt(prompts, { name: NAME }, context(accepted({ topic: 'x' })))) as unknown as {
      resultType: string;
      inputRequests: { user_context: { method: string; params: { message: string } } };
    };
    expect(result.resultType).toBe('input_required');
    expect(result.inputRequests.user_context.method).toBe('elicitation/create');
    expect(result.inputRequests.user_context.params.message).toMatch(
      /^What context should the prompt use\? \(The previous answer was refused: .*context.*\)$/,
    );
  });

  it('asks again when the answer is for another key only (extra keys are ignored)', async () => {
    const result = await getPrompt(prompts, { name: NAME }, context({ other: { action: 'accept', content: {} } }));
    expect(result).toMatchObject({ resultType: 'input_required' });
  });

  it.each(['decline', 'cancel'])('ends with -32602 when the user chose %s', async (action) => {
    await expect(getPrompt(prompts, { name: NAME }, context({ user_context: { action } }))).rejects.toThrow(
      expect.objectContaining({ code: -32602, data: { inputKey: 'user_context', action } }),
    );
  });

  it('refuses a prompt that asks with -32021 when the client did not declare elicitation', async () => {
    await expect(getPrompt(prompts, { name: NAME }, context(undefined, { sampling: {} }))).rejects.toThrow(
      expect.objectContaining({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } }),
    );
  });
});
