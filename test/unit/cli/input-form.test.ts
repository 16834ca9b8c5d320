// What the CLI accepts for a field of an input request's form before it sends the answer (required fields need an
// answer, numbers must be numbers within the field's bounds, whole ones for integers, text within its lengths), and
// the choices it offers for each of MCP's enum shapes.
import { describe, expect, it } from 'vitest';
import { choicesOf, problemWith } from '../../../cli/input-form.js';

describe('problemWith', () => {
  it('requires an answer to a required field, and takes an empty optional one', () => {
    expect(problemWith({ type: 'string' }, '', true)).toBe('An answer is required.');
    expect(problemWith({ type: 'number' }, '', false)).toBeUndefined();
  });

  it('holds text to the field’s lengths, and takes any text within them', () => {
    const note = { type: 'string', minLength: 2, maxLength: 5 };
    expect(problemWith(note, 'a', true)).toBe('At least 2 characters.');
    expect(problemWith(note, 'abcdef', true)).toBe('At most 5 characters (this is 6).');
    expect(problemWith(note, '12 ap', true)).toBeUndefined();
  });

  it('refuses what is not a number for a number field, and a fraction for an integer field', () => {
    expect(problemWith({ type: 'number' }, 'abc', false)).toBe('Enter a number.');
    expect(problemWith({ type: 'number' }, ' ', false)).toBe('Enter a number.');
    expect(problemWith({ type: 'number' }, 'Infinity', false)).toBe('Enter a number.');
    expect(problemWith({ type: 'integer' }, '2.5', false)).toBe('Enter a whole number.');
    expect(problemWith({ type: 'integer' }, '3', false)).toBeUndefined();
  });

  it('holds a number to the field’s minimum and maximum', () => {
    const amount = { type: 'number', minimum: 0, maximum: 210.91 };
    expect(problemWith(amount, '-1', false)).toBe('At least 0.');
    expect(problemWith(amount, '999', false)).toBe('At most 210.91.');
    expect(problemWith(amount, '210.91', false)).toBeUndefined();
  });
});

describe('choicesOf', () => {
  it('offers a plain enum’s values, labelled by enumNames when there are any', () => {
    expect(choicesOf({ type: 'string', enum: ['s', 'm'] })).toEqual([
      { value: 's', label: 's' },
      { value: 'm', label: 'm' },
    ]);
    expect(choicesOf({ type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] })).toEqual([
      { value: 's', label: 'Small' },
      { value: 'm', label: 'Medium' },
    ]);
  });

  it('offers a titled enum’s constants with their titles', () => {
    const field = { type: 'string', oneOf: [{ const: 'eu', title: 'Europe' }, { const: 'us' }] };
    expect(choicesOf(field)).toEqual([
      { value: 'eu', label: 'Europe' },
      { value: 'us', label: 'us' },
    ]);
  });

  it('offers nothing for a field that is not an enum', () => {
    expect(choicesOf({ type: 'string' })).toBeUndefined();
  });
});
