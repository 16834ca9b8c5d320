// Lambda step of the fixtures that ask the client (test_elicitation, test_sampling and the SEP-1034 /
// SEP-1330 elicitations): turns the answer the ask step waited for into the text result the scenarios expect. A client
// that could not answer (it answered the request with a JSON-RPC error, e.g. -32601 without the capability) gets a
// tool error saying so, as the scenarios' implementation notes ask.
import { result, text, toolError, type FixtureResult } from './fixture-content.js';

export interface InputAnswerEvent {
  /** What the result text starts with, e.g. "User response". */
  readonly label: string;
  readonly answer: {
    readonly action?: string;
    readonly content?: unknown;
    readonly error?: { readonly code: number; readonly message: string };
  };
}

export const handler = async (event: InputAnswerEvent): Promise<FixtureResult> => {
  const { label, answer } = event;
  if (answer.error !== undefined)
    return toolError(
      `The client could not answer (error ${answer.error.code}: ${answer.error.message}); it may lack the capability ` +
        `this tool needs.`,
    );
  // A sampling answer: the model's text.
  if (answer.action === undefined) {
    const content = answer.content as { type?: string; text?: string } | undefined;
    return result(text(`${label}: ${content?.type === 'text' ? content.text : JSON.stringify(answer.content)}`));
  }
  return result(text(`${label}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`));
};
