// prompts/list and prompts/get of the modern era (protocol 2026-07-28). A prompt with an `ask` answers prompts/get
// `resultType: "input_required"` with its one elicitation until the retry carries an accepted answer (SEP-2322 on a
// non-tool request). Stateless: no requestState, since the retry's `inputResponses` hold all the render needs, and
// the answer is checked again on every retry, so any instance serves any round.
import type { GetPromptResult, ServerContext } from '@modelcontextprotocol/server';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { CAPABILITY_OF_METHOD, type InputAnswer, type InputRequestMessage } from '../core/input-request.js';
import { answerProblems } from '../input/answer-validation.js';
import { askRequest, type PromptAsk } from '../prompts/prompt-definition.js';
import type { PromptRegistry } from '../prompts/prompt-registry.js';
import { requireCapabilities } from './client-capabilities.js';
import { ProtocolError } from './protocol-errors.js';

export function promptListing(prompts: PromptRegistry) {
  return prompts.list().map((prompt) => ({
    name: prompt.name,
    ...(prompt.title !== undefined ? { title: prompt.title } : {}),
    description: prompt.description,
    ...(prompt.arguments !== undefined ? { arguments: [...prompt.arguments] } : {}),
  }));
}

export interface PromptGet {
  readonly name: string;
  readonly arguments?: Readonly<Record<string, string>>;
}

/** The InputRequiredResult asking `request` under the ask's key (no requestState: the prompt keeps none). */
function inputRequired(ask: PromptAsk, request: InputRequestMessage): Record<string, unknown> {
  return { resultType: 'input_required', inputRequests: { [ask.key]: request } };
}

/**
 * The prompt's messages, or the round asking its question first. Unknown names and missing required arguments are
 * -32602 (MCP prompts: "Invalid prompt name", "Missing required arguments"); a prompt that asks needs a client that
 * declared elicitation (-32021 otherwise, before anything is asked: SEP-2575).
 */
export async function getPrompt(
  prompts: PromptRegistry,
  params: PromptGet,
  ctx: ServerContext,
): Promise<GetPromptResult> {
  const prompt = prompts.get(params.name);
  const args = prompts.argumentsFor(prompt, params.arguments ?? {});
  const rendered = (answer?: Readonly<Record<string, unknown>>): GetPromptResult => ({
    description: prompt.description,
    messages: prompt.render(args, answer),
  });
  if (prompt.ask === undefined) return rendered();
  const request = askRequest(prompt.ask);
  requireCapabilities(ctx, { [CAPABILITY_OF_METHOD[request.method]]: {} });
  const answer = ctx.mcpReq.inputResponses?.[prompt.ask.key];
  // SEP-2322 (Error Handling): "If the client fails to send all the information requested [...] the server SHOULD
  // respond with a new InputRequiredResult requesting the missing information again, rather than returning an error."
  // An answer the form refuses (content off requestedSchema) still lacks that information: asked again, the reason
  // in the message, so the person sees why the form came back.
  if (answer === undefined) return inputRequired(prompt.ask, request) as unknown as GetPromptResult;
  const problems = await answerProblems(request, answer);
  if (problems.length > 0) {
    const message = `${prompt.ask.message} (The previous answer was refused: ${problems.join('; ')}.)`;
    const again = { ...request, params: { ...request.params, message } } as InputRequestMessage;
    return inputRequired(prompt.ask, again) as unknown as GetPromptResult;
  }
  const { action, content } = answer as InputAnswer;
  // Declined or dismissed: the person chose not to answer. Elicitation: servers "MUST handle cases where the user
  // declines or cancels", and SEP-2322's re-request is for information the client failed to send, not withheld on
  // purpose; asking again at once would put the same form back in front of someone who just refused it. So the
  // request ends here, -32602 (what MCP answers a prompts/get missing what it requires); a fresh prompts/get asks anew.
  if (action !== 'accept')
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Prompt ${prompt.name} cannot render: the user ${action === 'decline' ? 'declined' : 'cancelled'} ` +
        `"${prompt.ask.message}"`,
      { inputKey: prompt.ask.key, action },
    );
  return rendered(content);
}
