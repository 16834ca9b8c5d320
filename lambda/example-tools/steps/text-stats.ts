// Lambda step of text_stats. A text with no words is a tool-level error (`isError: true`), not a failed execution.
import { wordsOf } from './words.js';

export const handler = async (input: { text: string }) => {
  const words = wordsOf(input.text);
  if (words.length === 0) {
    return { isError: true, content: [{ type: 'text', text: 'The text has no words to count.' }] };
  }
  return {
    words: words.length,
    uniqueWords: new Set(words).size,
    sentences: input.text.split(/[.!?]+/).filter((part) => part.trim() !== '').length,
    characters: input.text.length,
  };
};
