// A task's input request (an MCP elicitation form) asked at the terminal, one prompt per field: a yes/no for a
// boolean, a choice for an enum, a line of text (checked against the field's type and bounds) for the rest. An
// optional field left empty is left out of the answer; Ctrl-C at any prompt answers `cancel` (the person dismissed
// the form), as MCP defines it.
import type { Writable } from 'node:stream';
import { confirm, isCancel, log, select, text } from '@clack/prompts';
import type { FormField, InputAnswer, InputRequest } from './task-client.js';

type FieldValue = string | number | boolean;

export async function askForm(request: InputRequest, output: Writable = process.stderr): Promise<InputAnswer> {
  log.message(request.message, { output, symbol: '?' });
  const required = new Set(request.requestedSchema.required ?? []);
  const content: Record<string, FieldValue> = {};
  for (const [name, field] of Object.entries(request.requestedSchema.properties ?? {})) {
    const value = await askField(name, field, required.has(name), output);
    if (typeof value === 'symbol') return { action: 'cancel' };
    if (value !== undefined) content[name] = value;
  }
  return { action: 'accept', content };
}

async function askField(
  name: string,
  field: FormField,
  required: boolean,
  output: Writable,
): Promise<FieldValue | undefined | symbol> {
  const message = `${field.title ?? name}${field.description ? ` (${field.description})` : ''}`;
  if (field.type === 'boolean')
    return confirm({ message, output, ...(typeof field.default === 'boolean' ? { initialValue: field.default } : {}) });
  if (field.enum !== undefined && field.enum.length > 0) {
    const options = field.enum.map((value) => ({ value, label: value }));
    return select<string>({
      message,
      output,
      options: required ? options : [...options, { value: '', label: '(none)' }],
    }).then((value) => (value === '' ? undefined : value));
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

const isNumeric = (field: FormField): boolean => field.type === 'number' || field.type === 'integer';

/** Why `value` does not fit `field`, or `undefined` when it does (an empty optional field always does). */
export function problemWith(field: FormField, value: string, required: boolean): string | undefined {
  if (value === '') return required ? 'An answer is required.' : undefined;
  if (!isNumeric(field)) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) return 'Enter a number.';
  if (field.type === 'integer' && !Number.isInteger(number)) return 'Enter a whole number.';
  if (field.minimum !== undefined && number < field.minimum) return `At least ${field.minimum}.`;
  if (field.maximum !== undefined && number > field.maximum) return `At most ${field.maximum}.`;
  return undefined;
}
