// The registered prompts: lookup by name and the check of a prompts/get's arguments.
import { InvalidPromptArgumentsError, PromptNotFoundError } from '../core/errors.js';
import { promptDefinitionProblems, type PromptDefinition } from './prompt-definition.js';

export class PromptRegistry {
  private readonly prompts: ReadonlyMap<string, PromptDefinition>;

  /** @default no prompts */
  constructor(prompts: readonly PromptDefinition[] = []) {
    const problems = promptDefinitionProblems(prompts);
    if (problems.length > 0) throw new Error(`Invalid prompt definitions:\n- ${problems.join('\n- ')}`);
    this.prompts = new Map(prompts.map((prompt) => [prompt.name, prompt]));
  }

  list(): PromptDefinition[] {
    return [...this.prompts.values()];
  }

  /** Throws `PromptNotFoundError`. */
  get(name: string): PromptDefinition {
    const prompt = this.prompts.get(name);
    if (prompt === undefined) throw new PromptNotFoundError(name);
    return prompt;
  }

  /**
   * The arguments the prompt declares, from `args`; throws `InvalidPromptArgumentsError` naming every required one
   * that is missing. Undeclared arguments are dropped, so a render sees only what it declared.
   */
  argumentsFor(prompt: PromptDefinition, args: Readonly<Record<string, string>>): Record<string, string> {
    const declared = prompt.arguments ?? [];
    const missing = declared.filter(
      (argument) => argument.required === true && typeof args[argument.name] !== 'string',
    );
    if (missing.length > 0)
      throw new InvalidPromptArgumentsError(
        prompt.name,
        missing.map((argument) => `${argument.name} is required`),
      );
    return Object.fromEntries(
      declared
        .filter((argument) => typeof args[argument.name] === 'string')
        .map((argument) => [argument.name, args[argument.name]!]),
    );
  }
}
