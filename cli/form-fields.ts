// The field rules of an elicitation form, shared by the CLI's form (input-form.ts) and the task view's (view/): which
// choices a field offers, and why a typed value does not fit it. Pure (no Node, no DOM), so both bundles take it.
import type { FormField } from './task-client.js';

/** The choices a field offers, with their labels, or `undefined` when it is not an enum. */
export function choicesOf(field: FormField): { value: string; label: string }[] | undefined {
  const titled = field.oneOf ?? field.anyOf;
  if (titled !== undefined)
    return titled.flatMap((option) =>
      typeof option.const === 'string' ? [{ value: option.const, label: option.title ?? option.const }] : [],
    );
  if (field.enum === undefined) return undefined;
  return field.enum.map((value, index) => ({ value, label: field.enumNames?.[index] ?? value }));
}

export const isNumeric = (field: FormField): boolean => field.type === 'number' || field.type === 'integer';

/**
 * The string formats an elicitation schema may name, checked as the server checks them (it refuses an answer that
 * does not fit), so a person learns it while typing rather than from a refusal.
 */
const FORMAT_CHECKS: Record<string, { test: (value: string) => boolean; problem: string }> = {
  email: { test: (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value), problem: 'Enter an email address.' },
  uri: { test: (value) => /^[a-z][a-z0-9+.-]*:\S+$/i.test(value), problem: 'Enter a URI, such as https://…' },
  date: {
    test: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)),
    problem: 'Enter a date (YYYY-MM-DD).',
  },
  'date-time': {
    test: (value) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) &&
      !Number.isNaN(Date.parse(value)),
    problem: 'Enter a date and time with its offset (2026-12-07T09:30:00Z).',
  },
};

/**
 * Why `value` does not fit `field`, or `undefined` when it does (an empty optional field always does). The server
 * checks the answer against the whole schema again; these are the checks a person can act on while typing.
 */
export function problemWith(field: FormField, value: string, required: boolean): string | undefined {
  if (value === '') return required ? 'An answer is required.' : undefined;
  if (isNumeric(field)) {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number)) return 'Enter a number.';
    if (field.type === 'integer' && !Number.isInteger(number)) return 'Enter a whole number.';
    if (field.minimum !== undefined && number < field.minimum) return `At least ${field.minimum}.`;
    if (field.maximum !== undefined && number > field.maximum) return `At most ${field.maximum}.`;
    return undefined;
  }
  const format = field.format === undefined ? undefined : FORMAT_CHECKS[field.format];
  if (format !== undefined && !format.test(value)) return format.problem;
  if (field.minLength !== undefined && value.length < field.minLength) return `At least ${field.minLength} characters.`;
  if (field.maxLength !== undefined && value.length > field.maxLength)
    return `At most ${field.maxLength} characters (this is ${value.length}).`;
  return undefined;
}
