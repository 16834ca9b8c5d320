// Lambda step of analyze_documents: word, sentence and keyword figures for one document.
import { wordsOf } from './words.js';

export interface DocumentAnalysis {
  readonly words: number;
  readonly sentences: number;
  readonly characters: number;
  readonly topWords: string[];
}

export const handler = async (document: unknown): Promise<DocumentAnalysis> => {
  const text = typeof document === 'string' ? document : JSON.stringify(document);
  const words = wordsOf(text);
  const frequency = new Map<string, number>();
  for (const word of words.filter((candidate) => candidate.length > 3))
    frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const topWords = [...frequency.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([word]) => word);
  return {
    words: words.length,
    sentences: text.split(/[.!?]+/).filter((part) => part.trim() !== '').length,
    characters: text.length,
    topWords,
  };
};
