// Prompts: message templates a client fetches with prompts/get. Unlike a tool, a prompt runs no workflow: it renders
// at once from its arguments and, when it declares an `ask`, from one answer its client gives first (SEP-2322 multi
// round-trip on a non-tool request, protocol 2026-07-28). Pure: no AWS, no MCP SDK.
import { NAMED_INPUT_KEY, type InputRequestMessage } from '../core/input-request.js';
import { nameProblems } from '../contract/tool-definition.js';

/** An argument the client fills in (MCP PromptArgument); values are strings, as prompts/get carries them. */
export interface PromptArgument {
  readonly name: string;
  readonly description?: string;
  /** @default false */
  readonly required?: boolean;
}

/** A form the prompt asks its client to fill in before it renders (an `elicitation/create` in form mode). */
export interface PromptAsk {
  /** The `inputRequests` key (1-64 of `A-Za-z0-9_.-`): the client answers under it in `inputResponses`. */
  readonly key: string;
  /** What the person is asked. */
  readonly message: string;
  /** A flat object schema, as elicitation allows; an accepted answer must match it. */
  readonly requestedSchema: { readonly type: 'object' } & Readonly<Record<string, unknown>>;
}

/** A message of the rendered prompt (MCP PromptMessage, text content only). */
export interface PromptMessage {
  readonly role: 'user' | 'assistant';
  readonly content: { readonly type: 'text'; readonly text: string };
}

export interface PromptDefinition {
  /** MCP prompt name: 1-128 characters of `A-Za-z0-9_-.`, unique. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly arguments?: readonly PromptArgument[];
  /** Asked before every render; without it the prompt renders on the first prompts/get. */
  readonly ask?: PromptAsk;
  /**
   * The messages, from the arguments (required ones present) and, for a prompt with an `ask`, the content of the
   * accepted answer, already checked against `requestedSchema`. Pure: the same inputs give the same messages.
   */
  readonly render: (
    args: Readonly<Record<string, string>>,
    answer?: Readonly<Record<string, unknown>>,
  ) => PromptMessage[];
}

/** The input request a prompt's `ask` becomes on the wire, and the request its answer is checked against. */
export function askRequest(ask: PromptAsk): InputRequestMessage {
  return { method: 'elicitation/create', params: { message: ask.message, requestedSchema: ask.requestedSchema } };
}

/** Every problem with a set of prompt definitions, so a start fails once with the whole list. */
export function promptDefinitionProblems(prompts: readonly PromptDefinition[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const prompt of prompts) {
    problems.push(...nameProblems('Prompt', prompt.name, seen));
    const argumentNames = (prompt.arguments ?? []).map((argument) => argument.name);
    if (new Set(argumentNames).size !== argumentNames.length)
      problems.push(`Prompt '${prompt.name}': an argument name appears more than once`);
    if (prompt.ask === undefined) continue;
    if (!NAMED_INPUT_KEY.test(prompt.ask.key))
      problems.push(`Prompt '${prompt.name}': ask.key must be 1-64 characters of A-Z, a-z, 0-9, '_', '-' or '.'`);
    if (prompt.ask.requestedSchema?.type !== 'object')
      problems.push(`Prompt '${prompt.name}': ask.requestedSchema must be a JSON Schema with "type": "object"`);
  }
  return problems;
}
