// What the CLI accepts for a field of an input request's form before it sends the answer: required fields need an
// answer, numbers must be numbers within the field's bounds (whole ones for integers), text is taken as typed.
import { describe, expect, it } from 'vitest';
import { problemWith } from '../../../cli/input-form.js';

describe('problemWith', () => {
  it('requires an answer to a required field, and takes an empty optional one', () => {
    expect(problemWith({ type: 'string' }, '', true)).toBe('An answer is required.');
    expect(problemWith({ type: 'number' }, '', false)).toBeUndefined();
  });

  it('takes any text for a string field', () => {
    expect(problemWith({ type: 'string' }, '12 apples', true)).toBeUndefined();
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
