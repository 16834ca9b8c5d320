import { describe, expect, it } from 'vitest';
import { CONFORMANCE_PROMPTS } from '../../../lambda/conformance-tools/conformance-tool-catalog.js';
import { InvalidPromptArgumentsError, PromptNotFoundError } from '../../../lambda/core/errors.js';
import { askRequest, type PromptDefinition } from '../../../lambda/prompts/prompt-definition.js';
import { PromptRegistry } from '../../../lambda/prompts/prompt-registry.js';

const REVIEW: PromptDefinition = {
  name: 'review_code',
  description: 'Reviews a piece of code',
  arguments: [
    { name: 'code', required: true },
    { name: 'focus', description: 'What to look at first' },
  ],
  render: (args) => [{ role: 'user', content: { type: 'text', text: `Review ${args['code']} (${args['focus']})` } }],
};

describe('prompt registry', () => {
  it('lists the prompts in the order they were registered', () => {
    const registry = new PromptRegistry([REVIEW, ...CONFORMANCE_PROMPTS]);
    expect(registry.list().map((prompt) => prompt.name)).toEqual(['review_code', 'test_input_required_result_prompt']);
  });

  it('has no prompts by default', () => {
    expect(new PromptRegistry().list()).toEqual([]);
  });

  it('refuses an unknown name with PromptNotFoundError naming it', () => {
    const lookup = () => new PromptRegistry([REVIEW]).get('nope');
    expect(lookup).toThrow(PromptNotFoundError);
    expect(lookup).toThrow('Unknown prompt: nope');
  });

  it('refuses a prompts/get missing a required argument, naming each', () => {
    const registry = new PromptRegistry([REVIEW]);
    expect(() => registry.argumentsFor(REVIEW, { focus: 'naming' })).toThrow(InvalidPromptArgumentsError);
    expect(() => registry.argumentsFor(REVIEW, {})).toThrow(
      'Invalid arguments for prompt review_code: code is required',
    );
  });

  it('passes the declared arguments on and drops the others', () => {
    const registry = new PromptRegistry([REVIEW]);
    expect(registry.argumentsFor(REVIEW, { code: 'x = 1', extra: 'ignored' })).toEqual({ code: 'x = 1' });
  });

  it('refuses invalid definitions once, listing every problem', () => {
    const bad: PromptDefinition = {
      ...REVIEW,
      name: 'bad name',
      arguments: [{ name: 'a' }, { name: 'a' }],
      ask: { key: 'not a key', message: 'Hm?', requestedSchema: { type: 'string' } as never },
    };
    expect(() => new PromptRegistry([bad, REVIEW, REVIEW])).toThrow(
      [
        'Invalid prompt definitions:',
        "- Prompt name 'bad name' must be 1-128 characters of A-Z, a-z, 0-9, '_', '-' or '.'",
        "- Prompt 'bad name': an argument name appears more than once",
        "- Prompt 'bad name': ask.key must be 1-64 characters of A-Z, a-z, 0-9, '_', '-' or '.'",
        `- Prompt 'bad name': ask.requestedSchema must be a JSON Schema with "type": "object"`,
        "- Prompt name 'review_code' is registered more than once",
      ].join('\n'),
    );
  });
});

describe('the conformance prompt', () => {
  const [prompt] = CONFORMANCE_PROMPTS;

  it('asks the form the input-required-result-non-tool-request scenario expects', () => {
    expect(prompt!.ask?.key).toBe('user_context');
    expect(askRequest(prompt!.ask!)).toEqual({
      method: 'elicitation/create',
      params: {
        message: 'What context should the prompt use?',
        requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
      },
    });
  });

  it('renders one user message carrying the answered context', () => {
    expect(prompt!.render({}, { context: 'test context' })).toEqual([
      { role: 'user', content: { type: 'text', text: 'Use this context: test context' } },
    ]);
  });
});
