// Lambda step of analyze_documents: folds the per-document analyses into one summary (the tool's result).
import type { DocumentAnalysis } from './analyze-document.js';

interface SummarizeInput {
  readonly documents: unknown[];
  readonly analyses: DocumentAnalysis[];
}

export const handler = async (input: SummarizeInput) => {
  const totalWords = input.analyses.reduce((sum, analysis) => sum + analysis.words, 0);
  const counts = new Map<string, number>();
  for (const word of input.analyses.flatMap((analysis) => analysis.topWords))
    counts.set(word, (counts.get(word) ?? 0) + 1);
  return {
    documentCount: input.analyses.length,
    totalWords,
    averageWordsPerDocument:
      input.analyses.length === 0 ? 0 : Math.round((totalWords / input.analyses.length) * 10) / 10,
    longestDocumentIndex: input.analyses.reduce(
      (best, analysis, index, all) => (analysis.words > all[best]!.words ? index : best),
      0,
    ),
    keywords: [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 5)
      .map(([word]) => word),
  };
};
