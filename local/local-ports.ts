// The ports `npm start` listens on, each fixed by an environment variable or, unset or 0, any free one (the MCP
// server: 3000). Fixed ports let a script, an `aws` profile or a client keep one endpoint across restarts
// (docs/local-stack.md).

/** Each variable, by what it places. */
export const PORT_VARIABLES = {
  mcp: 'PORT',
  stepFunctions: 'STEP_FUNCTIONS_PORT',
  schemaRegistry: 'SCHEMA_REGISTRY_PORT',
  dynamoDb: 'DYNAMODB_PORT',
} as const;

export type LocalPorts = { readonly [Name in keyof typeof PORT_VARIABLES]: number };

/** The MCP server's port when PORT is unset. */
export const DEFAULT_MCP_PORT = 3000;

/** The ports `env` asks for (0: any free port); an invalid value throws, naming its variable. */
export function localPortsFrom(env: Readonly<Record<string, string | undefined>>): LocalPorts {
  const port = (name: keyof typeof PORT_VARIABLES, fallback: number): number => {
    const variable = PORT_VARIABLES[name];
    const text = env[variable];
    if (text === undefined || text.trim() === '') return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0 || value > 65_535)
      throw new InvalidPortError(`${variable} must be a port number from 0 (any free port) to 65535, not '${text}'`);
    return value;
  };
  const ports: LocalPorts = {
    mcp: port('mcp', DEFAULT_MCP_PORT),
    stepFunctions: port('stepFunctions', 0),
    schemaRegistry: port('schemaRegistry', 0),
    dynamoDb: port('dynamoDb', 0),
  };
  const names = Object.keys(PORT_VARIABLES) as Array<keyof typeof PORT_VARIABLES>;
  for (const [index, name] of names.entries()) {
    const same = names.slice(index + 1).find((other) => ports[other] !== 0 && ports[other] === ports[name]);
    if (same !== undefined)
      throw new InvalidPortError(
        `${PORT_VARIABLES[name]} and ${PORT_VARIABLES[same]} are both ${ports[name]}: each needs a port of its own`,
      );
  }
  return ports;
}

/** A port variable that is no port: its message is the one line `npm start` prints. */
export class InvalidPortError extends Error {
  override readonly name = 'InvalidPortError';
}
