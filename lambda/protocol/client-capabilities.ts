// The client capabilities a modern-era request declares in its `_meta` envelope, and the -32021 answer when a
// request needs one it did not declare (SEP-2575: a server must not rely on capabilities the client has not declared).
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';

export type Capabilities = Readonly<Record<string, object>>;

export function declaredCapabilities(ctx: ServerContext): ClientCapabilities {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? {};
}

/** What of `required` is not in `declared` (capabilities by name, extensions by identifier), or `undefined`. */
export function missingCapabilities(
  required: Capabilities,
  declared: ClientCapabilities,
): Record<string, object> | undefined {
  const missing: Record<string, object> = {};
  for (const [name, requirement] of Object.entries(required)) {
    const present = (declared as Record<string, unknown>)[name];
    if (present === undefined) missing[name] = requirement;
    else if (name === 'extensions') {
      const absent = Object.entries(requirement).filter(
        ([id]) => (present as Record<string, unknown>)[id] === undefined,
      );
      if (absent.length > 0) missing[name] = Object.fromEntries(absent);
    }
  }
  return Object.keys(missing).length > 0 ? missing : undefined;
}

/** Throws -32021 (HTTP 400) naming what the request lacks of `required`. */
export function requireCapabilities(ctx: ServerContext, required: Capabilities): void {
  const missing = missingCapabilities(required, declaredCapabilities(ctx));
  if (missing === undefined) return;
  const names = Object.entries(missing).flatMap(([name, value]) =>
    name === 'extensions' ? Object.keys(value) : [name],
  );
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: missing },
    `Missing required client capability: declare ${names.join(', ')} in this request's ` +
      `io.modelcontextprotocol/clientCapabilities`,
  );
}
