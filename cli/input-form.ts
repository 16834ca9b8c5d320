// A task's input request (an MCP elicitation form) asked at the terminal, one prompt per field of its restricted
// schema: a yes/no for a boolean (No unless the form says otherwise), a choice for an enum (plain, with `enumNames`,
// or titled `oneOf`/`anyOf` constants), several choices for an array of them, and a line of text, checked against the
// field's type and bounds, for the rest. An optional field left empty is left out of the answer. Ctrl-C or Esc in
// any prompt dismisses the form: the caller decides what that means.
import type { Writable } from 'node:stream';
import { confirm, isCancel, log, multiselect, select, text } from '@clack/prompts';
import type { FormField, InputAnswer, InputRequest } from './task-client.js';
import { choicesOf, isNumeric, problemWith } from './form-fields.js';

export { choicesOf, problemWith };

type FieldValue = string | number | boolean | string[];
/** The choice for "no value" in an optional enum: no string a form can name. */
const NONE = Symbol('none');

/** Where the prompts draw: stderr, beside the live line, so stdout stays the result's. */
const output: Writable = process.stderr;

export async function askForm(request: InputRequest): Promise<InputAnswer | 'dismissed'> {
  log.message(request.message, { output, symbol: '?' });
  const required = new Set(request.requestedSchema.required ?? []);
  const content: Record<string, FieldValue> = {};
  for (const [name, field] of Object.entries(request.requestedSchema.properties ?? {})) {
    const value = await askField(name, field, required.has(name));
    if (value === NONE) continue;
    if (isCancel(value)) return 'dismissed';
    if (value !== undefined) content[name] = value as FieldValue;
  }
  return { action: 'accept', content };
}

async function askField(name: string, field: FormField, required: boolean): Promise<FieldValue | undefined | symbol> {
  const message = `${field.title ?? name}${field.description ? ` (${field.description})` : ''}`;
  if (field.type === 'boolean')
    return confirm({ message, output, initialValue: typeof field.default === 'boolean' ? field.default : false });
  if (field.type === 'array') {
    const options = (field.items && choicesOf(field.items)) ?? [];
    return multiselect<string>({ message, output, options, required: required || (field.minItems ?? 0) > 0 });
  }
  const options = choicesOf(field);
  if (options !== undefined) {
    const initial = typeof field.default === 'string' ? { initialValue: field.default } : {};
    if (required) return select<string>({ message, output, options, ...initial });
    return select<string | typeof NONE>({ message, output, options: [...options, { value: NONE, label: '(none)' }] });
  }
  const answer = await text({
    message: required ? message : `${message}, optional`,
    output,
    ...(field.default !== undefined ? { initialValue: String(field.default) } : {}),
    validate: (value) => problemWith(field, value ?? '', required),
  });
  if (isCancel(answer)) return answer;
  if (answer === '' || answer === undefined) return undefined;
  return isNumeric(field) ? Number(answer) : answer;
}
