// The registered tools: lookup by name and argument validation against each tool's JSON Schema.
import { Ajv, type ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { InvalidToolArgumentsError, ToolNotFoundError } from '../core/errors.js';
import { onceLoaded } from '../core/once-loaded.js';
import {
  jsonSchemaDialect,
  toolDefinitionProblems,
  type JsonSchemaDialect,
  type ToolDefinition,
} from '../contract/tool-definition.js';

/** Strict off, so that annotations such as `x-mcp-header` pass. */
const AJV_OPTIONS = { allErrors: true, strict: false };

export class ToolRegistry {
  /** The tools written in code, then those discovered among the account's state machines (replaced as a whole). */
  private tools: ReadonlyMap<string, ToolDefinition>;
  private codeTools: ReadonlyMap<string, ToolDefinition>;
  /**
   * Compiled per definition, not per name: a definition served in place of another under the same name (a changed
   * schema) gets its own, and a check that began before the change keeps the schema it began with.
   */
  private readonly validators = new WeakMap<ToolDefinition, ValidateFunction>();
  /**
   * One Ajv per dialect a schema may name, made on first use, and shared by concurrent first checks. The 2020-12
   * dialect's module evaluates its meta-schemas when loaded, several milliseconds of CPU at a cold start whose first
   * requests (initialize, tools/list) validate nothing, so it is loaded then too.
   */
  private readonly ajv: Record<JsonSchemaDialect, () => Promise<Ajv | Ajv2020>> = {
    draft07: onceLoaded(async () => new Ajv(AJV_OPTIONS)),
    draft2020_12: onceLoaded(async () => new (await import('ajv/dist/2020.js')).Ajv2020(AJV_OPTIONS)),
  };

  constructor(tools: readonly ToolDefinition[]) {
    this.codeTools = validToolMap(tools);
    this.tools = this.codeTools;
  }

  /**
   * Serves `declared` as the tools written in code, in place of those given to the constructor: the declared catalog,
   * which an instance reads at its first request that may need a tool. Discovered tools already served stay served
   * (an instance's first request, say its initialize, may have read the discovered catalog before this), but for one
   * that a declared tool's name now takes. Throws on invalid definitions, as the constructor does.
   */
  serveDeclared(declared: readonly ToolDefinition[]): void {
    const discovered = [...this.tools.values()].filter((tool) => !this.codeTools.has(tool.name));
    this.codeTools = validToolMap(declared);
    this.tools = this.codeTools;
    if (discovered.length > 0) this.replaceDiscovered(discovered);
  }

  /**
   * Serves `discovered` beside the tools written in code, in place of the discovered tools served before. A tool whose
   * name a code tool has, or whose definition is invalid, is left out and returned, so the caller can say so; the
   * catalog refresher never stores one, so this guards against a catalog written by another version.
   */
  replaceDiscovered(discovered: readonly ToolDefinition[]): ToolDefinition[] {
    const tools = new Map(this.codeTools);
    const refused: ToolDefinition[] = [];
    for (const tool of discovered) {
      if (tools.has(tool.name) || toolDefinitionProblems([tool]).length > 0) refused.push(tool);
      else tools.set(tool.name, tool);
    }
    this.tools = tools;
    return refused;
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
  async validateArguments(name: string, args: unknown): Promise<void> {
    const tool = this.get(name);
    let validate = this.validators.get(tool);
    if (validate === undefined) {
      const ajv = await this.ajv[jsonSchemaDialect(tool.inputSchema) ?? 'draft2020_12']();
      validate = ajv.compile(tool.inputSchema);
      this.validators.set(tool, validate);
    }
    if (!validate(args)) {
      const problems = (validate.errors ?? []).map(
        (error) =>
          `${error.instancePath === '' ? 'arguments' : `arguments${error.instancePath}`} ` +
          `${error.message ?? 'is invalid'}`,
      );
      throw new InvalidToolArgumentsError(name, problems);
    }
  }
}

function validToolMap(tools: readonly ToolDefinition[]): ReadonlyMap<string, ToolDefinition> {
  const problems = toolDefinitionProblems(tools);
  if (problems.length > 0) throw new Error(`Invalid tool definitions:\n- ${problems.join('\n- ')}`);
  return new Map(tools.map((tool) => [tool.name, tool]));
}
