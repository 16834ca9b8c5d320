// The Lambda step of the EXPRESS example tool extract_keywords.
import { describe, expect, it } from 'vitest';
import { handler, NoKeywords } from '../../../lambda/example-tools/steps/extract-keywords.js';

describe('extract_keywords step', () => {
  it('picks the most frequent words of four letters or more, ties in alphabetical order', async () => {
    const picked = await handler({ text: 'Dogs chase cats. Cats chase mice; dogs nap. A cat is not a dog.' });
    expect(picked).toEqual({
      keywords: [
        { keyword: 'cats', count: 2 },
        { keyword: 'chase', count: 2 },
        { keyword: 'dogs', count: 2 },
        { keyword: 'mice', count: 1 },
      ],
      words: 14,
    });
  });

  it('returns at most maxKeywords', async () => {
    const picked = await handler({ text: 'alpha beta gamma delta', maxKeywords: 2 });
    expect(picked.keywords.map((each) => each.keyword)).toEqual(['alpha', 'beta']);
  });

  it('fails with NoKeywords, by name, for a text without such words', async () => {
    const picking = handler({ text: 'a an of it' });
    await expect(picking).rejects.toBeInstanceOf(NoKeywords);
    await expect(picking).rejects.toMatchObject({ name: 'NoKeywords' });
  });
});
