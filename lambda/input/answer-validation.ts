// Checks a client's answer against the input request it answers: an elicitation answer's action, and an
// accepted form's content against the request's `requestedSchema`; sampling and roots answers by their result shapes
// (MCP 2026-07-28 ElicitResult, CreateMessageResult, ListRootsResult). A refused answer leaves the request open.
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { onceLoaded } from '../core/once-loaded.js';
import type { InputRequestMessage } from '../core/input-request.js';

/**
 * The validator of requested schemas, loaded and made by the first answer that needs it, not at import: Ajv's
 * 2020-12 module evaluates its meta-schemas when loaded and a new Ajv adds them, which cost a cold start several
 * milliseconds of CPU for what few instances ever check.
 */
const requestedSchemaValidator = onceLoaded(async (): Promise<Ajv2020> => {
  const { Ajv2020: Validator } = await import('ajv/dist/2020.js');
  const ajv = new Validator({ allErrors: true, strict: false });
  // The string formats an elicitation schema may name: Ajv alone ignores formats, so "not an email" would pass.
  (addFormats as unknown as (ajv: Ajv2020, formats: string[]) => void)(ajv, ['email', 'uri', 'date', 'date-time']);
  return ajv;
});
/** Requested schemas compiled once per schema text: the same ask step asks with the same schema again and again. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 200;

async function validatorFor(schema: Record<string, unknown>): Promise<ValidateFunction> {
  const text = JSON.stringify(schema);
  let validate = compiled.get(text);
  if (validate === undefined) {
    const ajv = await requestedSchemaValidator();
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    validate = ajv.compile(schema);
    compiled.set(text, validate);
  }
  return validate;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const ELICIT_VALUE = (value: unknown): boolean =>
  ['string', 'number', 'boolean'].includes(typeof value) ||
  (Array.isArray(value) && value.every((item) => typeof item === 'string'));

/** What is wrong with `answer` as the response to `request`; empty when it is acceptable. */
export async function answerProblems(request: InputRequestMessage, answer: unknown): Promise<string[]> {
  if (!isRecord(answer)) return ['the response must be an object'];
  switch (request.method) {
    case 'elicitation/create': {
      const { action, content } = answer;
      if (action !== 'accept' && action !== 'decline' && action !== 'cancel')
        return ['action must be "accept", "decline" or "cancel"'];
      if (action !== 'accept') return content === undefined || isRecord(content) ? [] : ['content must be an object'];
      if (!isRecord(content)) return ['an accepted form needs content matching the requested schema'];
      const shape = Object.entries(content)
        .filter(([, value]) => !ELICIT_VALUE(value))
        .map(([name]) => `content.${name} must be a string, number, boolean or array of strings`);
      if (shape.length > 0) return shape;
      const validate = await validatorFor(request.params.requestedSchema);
      if (validate(content)) return [];
      return (validate.errors ?? []).map(
        (error) => `content${error.instancePath.replace(/\//g, '.')} ${error.message ?? 'is invalid'}`,
      );
    }
    case 'sampling/createMessage': {
      const problems: string[] = [];
      if (answer['role'] !== 'assistant' && answer['role'] !== 'user')
        problems.push('role must be "assistant" or "user"');
      if (typeof answer['model'] !== 'string') problems.push('model must be a string');
      if (!isRecord(answer['content']) && !Array.isArray(answer['content']))
        problems.push('content must be a content block or an array of them');
      return problems;
    }
    case 'roots/list':
      return Array.isArray(answer['roots']) &&
        answer['roots'].every((root) => isRecord(root) && typeof root['uri'] === 'string')
        ? []
        : ['roots must be an array of { uri }'];
  }
}
