// The registered tools: lookup by name and argument validation against each tool's JSON Schema.
import { Ajv, type ValidateFunction } from 'ajv';
import { InvalidToolArgumentsError, ToolNotFoundError } from '../core/errors.js';
import { toolDefinitionProblems, type ToolDefinition } from './tool-definition.js';

export class ToolRegistry {
  private readonly tools: ReadonlyMap<string, ToolDefinition>;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly ajv = new Ajv({ allErrors: true, strict: false });

  constructor(tools: readonly ToolDefinition[]) {
    const problems = toolDefinitionProblems(tools);
    if (problems.length > 0) throw new Error(`Invalid tool definitions:\n- ${problems.join('\n- ')}`);
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  list(): ToolDefinition[] {
    return [...this.tools.values()];
  }

  /** Throws `ToolNotFoundError`. */
  get(name: string): ToolDefinition {
    const tool = this.tools.get(name);
    if (tool === undefined) throw new ToolNotFoundError(name);
    return tool;
  }

  /** Checks `args` against the tool's input schema; throws `InvalidToolArgumentsError` listing every problem. */
  validateArguments(name: string, args: unknown): void {
    const tool = this.get(name);
    let validate = this.validators.get(name);
    if (validate === undefined) {
      validate = this.ajv.compile(tool.inputSchema);
      this.validators.set(name, validate);
    }
    if (!validate(args)) {
      const problems = (validate.errors ?? []).map((error) => `${error.instancePath === '' ? 'arguments' : `arguments${error.instancePath}`} ${error.message ?? 'is invalid'}`);
      throw new InvalidToolArgumentsError(name, problems);
    }
  }
}
