// Lambda step of extract_keywords: the text's most frequent words of four letters or more. A text with none fails the
// execution (a named error, not a tool-level `isError` output), to show how a failed EXPRESS run reaches the client.
import { wordsOf } from './words.js';

/** The most keywords a call returns when it names no maxKeywords. */
const DEFAULT_MAX_KEYWORDS = 5;
/** Shorter words are mostly articles, pronouns and prepositions. */
const MIN_KEYWORD_LENGTH = 4;

export class NoKeywords extends Error {
  constructor(message: string) {
    super(message);
    // Step Functions reports the error by its name.
    this.name = 'NoKeywords';
  }
}

export interface Keyword {
  readonly keyword: string;
  readonly count: number;
}

export const handler = async (input: {
  text: string;
  maxKeywords?: number;
}): Promise<{ keywords: Keyword[]; words: number }> => {
  const words = wordsOf(input.text);
  const counts = new Map<string, number>();
  for (const word of words.filter((candidate) => candidate.length >= MIN_KEYWORD_LENGTH))
    counts.set(word, (counts.get(word) ?? 0) + 1);
  if (counts.size === 0)
    throw new NoKeywords(`The text has no words of ${MIN_KEYWORD_LENGTH} letters or more to pick keywords from.`);
  const keywords = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, input.maxKeywords ?? DEFAULT_MAX_KEYWORDS)
    .map(([keyword, count]) => ({ keyword, count }));
  return { keywords, words: words.length };
};
