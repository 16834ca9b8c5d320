// The check of an ask step's request: the construct runs it at synth on the request an ask state will send, the ask
// function at run time on the request it receives (the request's shape is core/input-request.ts's
// InputRequestMessage).

/** The MCP requests a workflow may ask the client to answer. */
export const INPUT_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;

/** Problems with an ask step's request, for the ask Lambda to refuse it loudly (empty when it is well formed). */
export function inputRequestProblems(request: unknown): string[] {
  if (typeof request !== 'object' || request === null) return ['the request must be an object with a method'];
  const { method, params } = request as { method?: unknown; params?: unknown };
  if (!INPUT_METHODS.includes(method as never)) return [`method must be one of ${INPUT_METHODS.join(', ')}`];
  if (method === 'elicitation/create') {
    const form = params as { message?: unknown; requestedSchema?: unknown; mode?: unknown } | undefined;
    const problems: string[] = [];
    if (typeof form?.message !== 'string') problems.push('elicitation/create needs params.message (a string)');
    if (typeof form?.requestedSchema !== 'object' || form.requestedSchema === null)
      problems.push('elicitation/create needs params.requestedSchema (an object schema)');
    if (form?.mode !== undefined && form.mode !== 'form') problems.push('only form-mode elicitation is supported');
    return problems;
  }
  if (method === 'sampling/createMessage') {
    const sampling = params as { messages?: unknown; maxTokens?: unknown } | undefined;
    return Array.isArray(sampling?.messages) && Number.isInteger(sampling?.maxTokens)
      ? []
      : ['sampling/createMessage needs params.messages and params.maxTokens'];
  }
  return [];
}
